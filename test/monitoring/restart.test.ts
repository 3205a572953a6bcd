import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createEngine, type Engine } from '../../src/engine.js';
import { silentLogger, tempDir } from '../helpers.js';
import { tx } from './fixtures.js';

const MIN = 60_000;
const open = (dataDir: string, clock: ManualClock) => createEngine({ dataDir, clock, logger: silentLogger, tailIntervalMs: 0, workerIntervalMs: 0, watchRules: false });
const biz = { businessId: 'biz-restart' };

/** Lists, devices and a spread of decisions over two hours, some outside the velocity windows by the end. */
async function history(engine: Engine, clock: ManualClock): Promise<void> {
  const actor = { businessId: biz.businessId };
  await engine.monitoring.addToBlacklist(actor, 'accounts', 'acct-bad');
  await engine.monitoring.addToBlacklist(actor, 'users', 'user-gone');
  await engine.monitoring.removeFromBlacklist(actor, 'users', 'user-gone');
  await engine.monitoring.saveDevice(actor, { customerId: 'u-1', device: { deviceId: 'known-phone' } });
  for (let i = 0; i < 30; i++) {
    clock.advance(4 * MIN);
    const user = `u-${i % 3}`;
    await engine.decide(
      tx(`H-${i}`, {
        transactionData: { amount: 150_000 * (1 + (i % 4)), receiverAccount: `r-${i % 5}`, senderAccount: `s-${i % 3}` },
        anonymizedUserData: { uniqueId: user },
        device: { deviceId: `d-${i % 4}` },
      }),
      biz,
    );
  }
}

const probes = [
  tx('P-1', { transactionData: { amount: 600_000, senderAccount: 's-0' }, anonymizedUserData: { uniqueId: 'u-0' }, device: { deviceId: 'd-0' } }),
  tx('P-2', { transactionData: { amount: 600_000, receiverAccount: 'acct-bad' }, anonymizedUserData: { uniqueId: 'u-1' }, device: { deviceId: 'known-phone' } }),
  tx('P-3', { transactionData: { amount: 700_000 }, anonymizedUserData: { uniqueId: 'user-gone' }, device: { deviceId: 'new-phone' } }),
];

async function probe(engine: Engine) {
  const out = [];
  for (const p of probes) {
    const decision = await engine.decide(p, biz);
    out.push({ decision, features: (await engine.monitoring.getTransaction(biz.businessId, decision.transactionId)).features });
  }
  return out;
}

it('a restarted engine rebuilds the same lists, velocity and history from the log', async () => {
  const liveDir = tempDir();
  const restartDir = tempDir();
  try {
    const liveClock = new ManualClock('2026-05-01T08:00:00.000Z');
    const live = await open(liveDir.path, liveClock);
    await history(live, liveClock);
    liveClock.advance(30 * MIN);
    const expected = await probe(live);
    await live.close();

    const clock = new ManualClock('2026-05-01T08:00:00.000Z');
    const first = await open(restartDir.path, clock);
    await history(first, clock);
    await first.close();
    clock.advance(30 * MIN);
    const reopened = await open(restartDir.path, clock);
    try {
      expect(await probe(reopened)).toEqual(expected);
      // A resubmission after the restart still returns the stored decision.
      const again = await reopened.decide(tx('H-3', { transactionData: { amount: 600_000, receiverAccount: 'r-3', senderAccount: 's-0' }, anonymizedUserData: { uniqueId: 'u-0' }, device: { deviceId: 'd-3' } }), biz);
      expect(again.transactionId).toBe((await reopened.monitoring.getTransaction(biz.businessId, again.transactionId)).transactionId);
    } finally {
      await reopened.close();
    }
    expect(expected.map((p) => p.decision.action.result)).toContain('rejected');
  } finally {
    liveDir.remove();
    restartDir.remove();
  }
});
