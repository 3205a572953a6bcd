import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { RuleSources } from '../../src/rules/index.js';
import { testEngine } from '../helpers.js';
import { backtestHere, tx } from './fixtures.js';

const SANCTIONS = 'id,name,aliases,birth_date,countries,program\nX1,Zebulon Quartermaine,,1970-05-01,NG,TEST-PROGRAM\n';
const SANCTIONS_SENDER = `rule SANCTIONS_SENDER "Sender name matches a sanctions list"
  when sanctionsScore(screeningData.senderName) >= 90
  score 100
  reason SCR009 critical "sender on a sanctions list"
end
`;

// A backtest thread loads the rules and the store from source under tsx, and the engine indexes the bundled lists.
it('backtests against the lists of each decision, and lists what it cannot reproduce with the reason', { timeout: 300_000 }, async () => {
  const t = await testEngine({ workerIntervalMs: 0 });
  try {
    const { engine } = t;
    writeFileSync(join(t.dir, 'sanctions.csv'), SANCTIONS);
    const imported = await engine.screening.importList({ format: 'csv', path: join(t.dir, 'sanctions.csv'), list: 'test-sanctions' });
    await engine.store.catchUp();
    const body = (reference: string, receiverName: string) =>
      tx(reference, { screeningData: { senderName: 'Ada Obi', receiverName }, anonymizedUserData: { uniqueId: 'user-late' } });
    const listed = await engine.decide(body('BT-1', 'Zebulon Quartermaine'));
    expect(listed.ruleResult?.map((r) => r.id)).toContain('SANCTIONS_RECEIVER');
    await engine.decide(body('BT-2', 'Chinwe Adebayo'));
    // Today's world: the user is blacklisted since, which no decision saw.
    await engine.monitoring.addToBlacklist({ businessId: 'default' }, 'users', 'user-late');

    const inForce = await engine.monitoring.ruleSources();
    const same = await engine.monitoring.backtest('default', inForce);
    expect(same).toMatchObject({ decisions: 2, changed: 0, evaluatedAgainst: 'log position', unreproducibleCount: 0, reconstructed: 0 });
    expect(same.ruleHits.SANCTIONS_RECEIVER).toEqual({ current: 1, candidate: 1 });
    expect(same.ruleHits.BL_USER).toBeUndefined();

    // The imported version's records are gone: a name no decision screened cannot be scored as it would have been.
    rmSync(join(t.dir, 'screening-lists', 'test-sanctions'), { recursive: true });
    const added = await engine.monitoring.backtest('default', {
      ...inForce,
      files: [...inForce.files, { path: 's.rules', text: SANCTIONS_SENDER }],
    });
    expect(added).toMatchObject({ decisions: 0, changed: 0, unreproducibleCount: 2 });
    expect(added.unreproducible.map((u) => u.reference)).toEqual(['BT-1', 'BT-2']);
    for (const u of added.unreproducible) {
      expect(u.position).toBeGreaterThan(0);
      expect(u.reason).toBe(
        `sanctionsScore("Ada Obi"): the decision did not screen this name, and the screening list test-sanctions version ${imported.version} is no longer on disk (screening-lists/test-sanctions/${imported.contentHash}.json), and it was in force at its position`,
      );
    }
  } finally {
    await t.close();
  }
});

const BIG = `rule BIG "Anything from 50k"
  when transactionData.amount >= 50_000
  score 50
  reason C001 medium "50k or more"
end
`;

it('keeps a backtest thread between backtests: each report is the one run here, a refused candidate leaves it serving, and closing stops it', {
  timeout: 300_000,
}, async () => {
  const t = await testEngine({ workerIntervalMs: 0 });
  let closed = false;
  try {
    const { engine } = t;
    for (let i = 0; i < 6; i++)
      await engine.decide(tx(`KEPT-${i}`, { transactionData: { amount: 20_000 * i }, anonymizedUserData: { uniqueId: `user-${i % 2}` } }));
    await engine.store.catchUp();
    const here = (sources: RuleSources) => backtestHere(engine, t.dir, sources);
    const inForce = await engine.monitoring.ruleSources();
    const candidate = { ...inForce, files: [...inForce.files, { path: 'big.rules', text: BIG }] };

    const same = await engine.monitoring.backtest('default', inForce);
    expect(same).toMatchObject({ decisions: 6, changed: 0 });
    expect(same).toEqual(await here(inForce));
    await expect(engine.monitoring.backtest('default', { files: [{ path: 'broken.rules', text: 'rule' }], lists: [] })).rejects.toThrow(
      ValidationError,
    );
    const changed = await engine.monitoring.backtest('default', candidate);
    expect(changed.changed).toBeGreaterThan(0);
    expect(changed).toEqual(await here(candidate));
    expect(await engine.monitoring.backtest('default', inForce)).toEqual(same);

    await t.close();
    closed = true;
    await expect(engine.monitoring.backtest('default', inForce)).rejects.toThrow('the engine is closing');
  } finally {
    if (!closed) await t.close();
  }
});
