// Rule performance from the log: a fixture of decisions, alerts, closures and an STR with known dispositions gives
// exactly the expected figures per rule and period, and rebuilding the read model from the log gives the same rows.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { verifyReplay } from '../../src/projections/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { customer, settings } from '../reports/fixtures.js';
import { rulesPerformance } from '../../src/cli/rules.js';
import { runCommand } from '../support/cli.js';
import { tx } from './fixtures.js';

const RULES = `
rule BIG "Big" when transactionData.amount >= 1_000_000 score 50 reason P1 high "big" end
rule NIGHT "Night" when contains(transactionData.narration, "night") score 50 reason P2 high "night" end
rule NOTE "Note" when contains(transactionData.narration, "note") score 10 reason P3 low "note" end
decide review at 40 otherwise approved end
`.replace(/ (when|score|reason|end|review|otherwise)/g, '\n  $1');

const HOUR = 3_600_000;
const BIZ = 'perfbiz';

describe('rule performance', () => {
  let api: TestApi;
  let rulesDir: string;
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const actor = { businessId: BIZ, userId: 'analyst1' };

  /** A decision of user `user` (its own account); returns its case, if it raised an alert. */
  const decide = async (reference: string, user: string, patch: { amount?: number; narration?: string }) => {
    const body = tx(reference, {
      transactionData: {
        amount: patch.amount ?? 25_000,
        narration: patch.narration ?? 'rent',
        senderAccount: `01000000${user.slice(1).padStart(2, '0')}`,
      },
      anonymizedUserData: { uniqueId: user, name: 'Adebayo Okafor' },
      counterpartyData: { accountNumber: '9876543210', bankCode: '058', name: 'Chinedu Okeke', bankCountry: 'NG' },
    });
    const decision = await api.engine.monitoring.decide({ businessId: BIZ }, body);
    return (await api.engine.monitoring.getTransaction(BIZ, decision.transactionId)).caseId;
  };
  const close = async (caseId: string, disposition: string, afterHours: number) => {
    clock.advance(afterHours * HOUR);
    await api.engine.cases.closeWithDisposition(actor, caseId, disposition);
    clock.advance(-afterHours * HOUR);
  };

  beforeAll(async () => {
    rulesDir = await mkdtemp(join(tmpdir(), 'perf-rules-'));
    await cp(join(import.meta.dirname, '..', '..', 'rules'), rulesDir, {
      recursive: true,
      filter: (p) => !/\.(rules|test\.json)$/.test(p) || p.includes('customer-risk'),
    });
    await writeFile(join(rulesDir, 'perf.rules'), RULES);
    api = await testApi({ rulesDir, clock, watchRules: false, workerIntervalMs: 0 });
    await api.engine.reports.configure(actor, settings());
    await api.engine.cdd.customers.create({ businessId: BIZ }, customer('u2', '0100000002'));

    // 2026-03-02
    const c1 = await decide('T1', 'u1', { amount: 2_000_000 }); // BIG: opens C1
    expect(await decide('T2', 'u1', { amount: 2_000_000, narration: 'night' })).toBe(c1); // BIG + NIGHT join C1
    const c2 = await decide('T3', 'u2', { narration: 'night' }); // NIGHT: opens C2
    const c3 = await decide('T4', 'u3', { amount: 3_000_000 }); // BIG: C3
    const c4 = await decide('T5', 'u4', { amount: 1_500_000 }); // BIG: C4, left open
    expect(await decide('T6', 'u5', { narration: 'note' })).toBeNull(); // NOTE alone: approved, no alert
    expect(await decide('T7', 'u4', { amount: 1_500_000, narration: 'note' })).toBe(c4); // BIG + NOTE join C4
    await close(c1!, 'false positive', 2);
    await close(c2!, 'reported', 4);
    await close(c3!, 'customer exited', 6);
    const str = await api.engine.reports.draftStr(actor, { caseId: c2! });
    await api.engine.reports.approve(actor, str.id);
    await api.engine.reports.submit(actor, str.id, 'download');
    // 2026-03-03
    clock.set('2026-03-03T09:00:00.000Z');
    const c5 = await decide('T8', 'u6', { narration: 'night' }); // NIGHT: C5
    await close(c5!, 'no further action', 1);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await rm(rulesDir, { recursive: true, force: true });
  });

  const none = { 'false positive': 0, reported: 0, 'customer exited': 0, 'no further action': 0 };

  it('gives each rule exactly its hits, alerts, cases, dispositions, STRs and median time to close', async () => {
    const report = await api.engine.rulePerformance.report(BIZ, { from: '2026-03-02', to: '2026-03-02' });
    expect(report.from).toBe('2026-03-02');
    expect(report.rules).toEqual([
      {
        ruleId: 'BIG',
        hits: 5,
        alerts: 5,
        cases: 3,
        closed: 2,
        dispositions: { ...none, 'false positive': 1, 'customer exited': 1 },
        truePositives: 1,
        precision: '0.5',
        strs: 0,
        strShare: '0',
        medianHoursToClose: '4',
      },
      {
        ruleId: 'NIGHT',
        hits: 2,
        alerts: 2,
        cases: 2,
        closed: 2,
        dispositions: { ...none, 'false positive': 1, reported: 1 },
        truePositives: 1,
        precision: '0.5',
        strs: 1,
        strShare: '0.5',
        medianHoursToClose: '3',
      },
      {
        ruleId: 'NOTE',
        hits: 2,
        alerts: 1,
        cases: 1,
        closed: 0,
        dispositions: none,
        truePositives: 0,
        precision: null,
        strs: 0,
        strShare: '0',
        medianHoursToClose: null,
      },
    ]);
    expect(report.days).toEqual([
      { day: '2026-03-02', ruleId: 'BIG', hits: 5, alerts: 5 },
      { day: '2026-03-02', ruleId: 'NIGHT', hits: 2, alerts: 2 },
      { day: '2026-03-02', ruleId: 'NOTE', hits: 2, alerts: 1 },
    ]);
  });

  it('counts each period on its own and together', async () => {
    const second = await api.engine.rulePerformance.report(BIZ, { from: '2026-03-03', to: '2026-03-03' });
    expect(second.rules).toEqual([
      expect.objectContaining({
        ruleId: 'NIGHT',
        hits: 1,
        alerts: 1,
        cases: 1,
        closed: 1,
        truePositives: 0,
        precision: '0',
        medianHoursToClose: '1',
      }),
    ]);
    const both = await api.engine.rulePerformance.report(BIZ, { from: '2026-03-02', to: '2026-03-03' });
    expect(both.rules.find((r) => r.ruleId === 'NIGHT')).toMatchObject({
      hits: 3,
      cases: 3,
      closed: 3,
      dispositions: { ...none, 'false positive': 1, reported: 1, 'no further action': 1 },
      precision: '0.3333',
      strShare: '0.3333',
      medianHoursToClose: '2',
    });
  });

  it('is rebuilt from the log row for row', async () => {
    const report = await verifyReplay(api.engine.db, api.engine.store, api.engine.projections);
    expect(report.diffs).toEqual([]);
    expect(report.tables.find((t) => t.name === 'rule_performance_cases')?.rows).toBe(7);
  });

  it('answers GET /rules/performance, and 400 naming the field for a bad period', async () => {
    const key = await api.engine.auth.issue({ name: 'perf', businessId: BIZ });
    const ok = await api.call('GET', '/api/v1/transaction-monitoring/rules/performance?from=2026-03-02&to=2026-03-03', { key });
    expect(ok.status).toBe(200);
    expect(ok.body.data.rules.map((r: { ruleId: string }) => r.ruleId)).toEqual(['BIG', 'NIGHT', 'NOTE']);
    for (const [query, field] of [
      ['from=2026-3-2&to=2026-03-03', 'from'],
      ['from=2026-03-02&to=2026-02-30', 'to'],
      ['from=2026-03-04&to=2026-03-03', 'from'],
      ['from=2024-01-01&to=2026-03-03', 'from'],
    ] as const) {
      const bad = await api.call('GET', `/api/v1/transaction-monitoring/rules/performance?${query}`, { key });
      expect(bad.status, query).toBe(400);
      expect(bad.body.message, query).toMatch(new RegExp(`^${field}\\b`));
    }
  });

  it('prints the table in the CLI, the rules with most false positives first', async () => {
    const env = { DATA_DIR: process.env.DATA_DIR, RULES_DIR: process.env.RULES_DIR };
    Object.assign(process.env, { DATA_DIR: api.dir, RULES_DIR: rulesDir });
    try {
      const { code, stdout } = await runCommand(rulesPerformance, ['--business', BIZ, '--from', '2026-03-02', '--to', '2026-03-03']);
      expect(code).toBe(0);
      expect(stdout.split('\n').map((l) => l.replace(/ +/g, ' '))).toEqual([
        `Business ${BIZ}`,
        'Rules from 2026-03-02 to 2026-03-03 (UTC days)',
        'Rule hits alerts cases closed false pos. true pos. precision STRs STR share median h',
        'BIG 5 5 3 2 1 1 0.5 0 0 4',
        'NIGHT 3 3 3 3 1 1 0.3333 1 0.3333 2',
        'NOTE 2 1 1 0 0 0 - 0 0 -',
      ]);
      expect(await runCommand(rulesPerformance, ['--business', BIZ, '--from', 'yesterday'])).toMatchObject({
        code: 2,
        stderr: 'rules performance: --from must be a day written YYYY-MM-DD',
      });
    } finally {
      for (const [k, v] of Object.entries(env))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
