// The default rules on a day of a Nigerian switch's traffic (switch-day.ts): what they flag must be the few
// percent built to be suspicious, not the empty strings or the carriers' shared addresses.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRuleset, MemoryLists, RulesRuntime } from '../../src/rules/index.js';
import { switchDay } from './switch-day.js';

const DIR = join(import.meta.dirname, '..', '..', 'rules');

// Bounds on the share of the day's transactions not approved. Suspicious by construction: 2.0% of the day (123 of 6,123), of which the rules flag about two thirds.
// Ordinary traffic may trip a rule now and then, but the share flagged must stay near what was built.
const FLAGGED_MIN = 0.008;
const FLAGGED_MAX = 0.03;
// Of what is flagged, at least this share must be what was built to be suspicious.
const PRECISION_MIN = 0.8;

describe('the default rules on a day of a switch', async () => {
  const ruleset = await loadRuleset(DIR);
  const day = switchDay(20240612);
  const lists = new MemoryLists();
  for (const [user, device] of day.knownDevices) lists.add('knownDevices', device, user);
  const runtime = new RulesRuntime(ruleset, { lists });
  const decided = day.transactions.map((t) => ({ ...t, evaluation: runtime.decide(t.request, t.at) }));
  const flagged = decided.filter((d) => d.evaluation.action.result !== 'approved');
  const suspicious = decided.filter((d) => d.suspicious !== null);

  it('is a day of thousands of users, mostly behind carrier addresses, with empty strings where nothing applies', () => {
    expect(new Set(decided.map((d) => (d.request.anonymizedUserData as { uniqueId: string }).uniqueId)).size).toBeGreaterThan(1_500);
    const vasEmpty = decided.filter((d) => (d.request.transactionData as { vasReceiver: string }).vasReceiver === '');
    expect(vasEmpty.length / decided.length).toBeGreaterThan(0.6);
    expect(suspicious.length / decided.length).toBeGreaterThan(0.01);
    expect(suspicious.length / decided.length).toBeLessThan(0.05);
  });

  it(`flags between ${FLAGGED_MIN * 100}% and ${FLAGGED_MAX * 100}% of it, mostly what was built to be suspicious`, () => {
    const share = flagged.length / decided.length;
    const hits = new Map<string, number>();
    for (const d of flagged) for (const f of d.evaluation.fired) hits.set(f.id, (hits.get(f.id) ?? 0) + 1);
    const detail = `${flagged.length} of ${decided.length} flagged; hits ${JSON.stringify(Object.fromEntries(hits))}`;
    expect(share, detail).toBeGreaterThanOrEqual(FLAGGED_MIN);
    expect(share, detail).toBeLessThanOrEqual(FLAGGED_MAX);
    const precision = flagged.filter((d) => d.suspicious !== null).length / flagged.length;
    expect(precision, detail).toBeGreaterThanOrEqual(PRECISION_MIN);
  });

  it('flags each pattern built into the day', () => {
    const caught = new Set(flagged.map((d) => d.suspicious));
    expect([...new Set(suspicious.map((d) => d.suspicious))].filter((p) => !caught.has(p))).toEqual([]);
  });

  it("never counts the carriers' shared addresses or the empty VAS receiver as one party", () => {
    const fired = new Set(decided.flatMap((d) => (d.suspicious === null ? d.evaluation.fired.map((f) => f.id) : [])));
    expect(fired.has('VEL_IP_USERS')).toBe(false);
    expect(fired.has('VAS_RECEIVER_BURST')).toBe(false);
  });
});
