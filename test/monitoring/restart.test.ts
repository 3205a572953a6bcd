import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { pino } from 'pino';
import { beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Engine } from '../../src/engine.js';
import { openEngine, tempDir } from '../helpers.js';
import { tx } from './fixtures.js';
import { observable } from './state-view.js';

const MIN = 60_000;
const open = (dataDir: string, clock: ManualClock, snapshotEvery?: number) => openEngine(dataDir, { clock, snapshotEvery });
const biz = { businessId: 'biz_restart' };

/** Lists, devices and a spread of decisions over two hours, some outside the velocity windows by the end. */
async function history(engine: Engine, clock: ManualClock, midway?: () => Promise<void>): Promise<void> {
  const actor = { businessId: biz.businessId };
  await engine.monitoring.addToBlacklist(actor, 'accounts', 'acct-bad');
  await engine.monitoring.addToBlacklist(actor, 'users', 'user-gone');
  await engine.monitoring.removeFromBlacklist(actor, 'users', 'user-gone');
  await engine.monitoring.saveDevice(actor, { customerId: 'u-1', device: { deviceId: 'known-phone' } });
  for (let i = 0; i < 30; i++) {
    if (i === 15) await midway?.();
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
  tx('P-1', {
    transactionData: { amount: 600_000, senderAccount: 's-0' },
    anonymizedUserData: { uniqueId: 'u-0' },
    device: { deviceId: 'd-0' },
  }),
  tx('P-2', {
    transactionData: { amount: 600_000, receiverAccount: 'acct-bad' },
    anonymizedUserData: { uniqueId: 'u-1' },
    device: { deviceId: 'known-phone' },
  }),
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

const snapshotOf = (dataDir: string) => join(dataDir, 'snapshots', 'monitoring.v8');

interface Start {
  /** Runs halfway through the history, on the engine that records it. */
  midway?(engine: Engine, dir: string): Promise<void>;
  /** Runs between the close and the restart. */
  prepare(dir: string): void | Promise<void>;
  /** Events between the snapshots the recording engine writes from its snapshot thread. */
  every?: number;
  /** Where the snapshot the restart restores ends (its log line names it); unset: it replays the whole log. */
  restores?: 'at the head' | 'before the head';
}

/** What a start finds beside the log: a snapshot (the close's, or an older one and the log after it), none, or one it cannot use. */
const starts: Record<string, Start> = {
  'the snapshot written at close': { prepare: (dir) => expect(existsSync(snapshotOf(dir))).toBe(true), restores: 'at the head' },
  'a snapshot taken halfway and the log after it (as after a crash)': {
    async midway(engine, dir) {
      await engine.monitoring.writeSnapshot();
      copyFileSync(snapshotOf(dir), join(dir, 'halfway.v8'));
    },
    prepare: (dir) => copyFileSync(join(dir, 'halfway.v8'), snapshotOf(dir)),
    restores: 'before the head',
  },
  'a snapshot the snapshot thread wrote while running and the log after it': {
    every: 20,
    async midway(_, dir) {
      for (let waited = 0; !existsSync(snapshotOf(dir)); waited += 20) {
        if (waited > 20_000) throw new Error('the snapshot thread wrote no snapshot');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      copyFileSync(snapshotOf(dir), join(dir, 'halfway.v8'));
    },
    prepare: (dir) => copyFileSync(join(dir, 'halfway.v8'), snapshotOf(dir)),
    restores: 'before the head',
  },
  'the log alone, without a snapshot': { prepare: (dir) => rmSync(snapshotOf(dir)) },
  'the log alone, the snapshot being unreadable': { prepare: (dir) => writeFileSync(snapshotOf(dir), 'not a snapshot') },
  'the log alone, the snapshot being of an earlier format': {
    prepare(dir) {
      // As a version before the velocity windows moved into typed arrays wrote it (format 2): refused, not misread.
      const file = deserialize(readFileSync(snapshotOf(dir))) as { format: number };
      file.format = 2;
      writeFileSync(snapshotOf(dir), serialize(file));
    },
  },
  'the log alone, the snapshot holding a state of another shape': {
    prepare(dir) {
      const file = deserialize(readFileSync(snapshotOf(dir))) as { state: Uint8Array };
      file.state = serialize({ position: 1, businesses: new Map([[biz.businessId, { velocity: { features: 'not columns' } }]]) });
      writeFileSync(snapshotOf(dir), serialize(file));
    },
  },
  "the log alone, the snapshot being another log's": {
    async prepare(dir) {
      const other = tempDir();
      try {
        const clock = new ManualClock('2026-05-01T08:00:00.000Z');
        const engine = await open(other.path, clock);
        for (let i = 0; i < 40; i++) await engine.decide(tx(`O-${i}`), biz);
        await engine.close();
        copyFileSync(snapshotOf(other.path), snapshotOf(dir));
      } finally {
        other.remove();
      }
    },
  },
};

/** The probes' answers from an engine that recorded the same history and never restarted: every start must match them. */
let expected: Awaited<ReturnType<typeof probe>>;
beforeAll(async () => {
  const liveDir = tempDir();
  try {
    const liveClock = new ManualClock('2026-05-01T08:00:00.000Z');
    const live = await open(liveDir.path, liveClock);
    await history(live, liveClock);
    liveClock.advance(30 * MIN);
    expected = await probe(live);
    await live.close();
  } finally {
    liveDir.remove();
  }
});

it.each(Object.entries(starts))('a restarted engine rebuilds the same lists, velocity and history from %s', async (_, start) => {
  const restartDir = tempDir();
  try {
    const clock = new ManualClock('2026-05-01T08:00:00.000Z');
    const first = await open(restartDir.path, clock, start.every);
    await history(first, clock, () => start.midway?.(first, restartDir.path) ?? Promise.resolve());
    await first.close();
    await start.prepare(restartDir.path);
    clock.advance(30 * MIN);
    const lines: { msg: string; snapshotPosition?: number | null; head?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const reopened = await openEngine(restartDir.path, { clock, logger });
    const rebuilt = lines.find((l) => l.msg === 'monitoring state rebuilt')!;
    if (!start.restores) expect(rebuilt.snapshotPosition).toBeNull();
    else if (start.restores === 'at the head') expect(rebuilt.snapshotPosition).toBe(rebuilt.head);
    else {
      expect(rebuilt.snapshotPosition).toBeGreaterThan(0);
      expect(rebuilt.snapshotPosition).toBeLessThan(rebuilt.head!);
    }
    try {
      expect(await probe(reopened)).toEqual(expected);
      // A resubmission after the restart still returns the stored decision.
      const again = await reopened.decide(
        tx('H-3', {
          transactionData: { amount: 600_000, receiverAccount: 'r-3', senderAccount: 's-0' },
          anonymizedUserData: { uniqueId: 'u-0' },
          device: { deviceId: 'd-3' },
        }),
        biz,
      );
      expect(again.transactionId).toBe((await reopened.monitoring.getTransaction(biz.businessId, again.transactionId)).transactionId);
    } finally {
      await reopened.close();
    }
    expect(expected.map((p) => p.decision.action.result)).toContain('rejected');
  } finally {
    restartDir.remove();
  }
});

it('a close after a recent snapshot leaves it, and the next start replays the few events after it', async () => {
  const dir = tempDir();
  try {
    const clock = new ManualClock('2026-05-01T08:00:00.000Z');
    const engine = await open(dir.path, clock);
    for (let i = 0; i < 5; i++) await engine.decide(tx(`K-${i}`), biz);
    await engine.monitoring.writeSnapshot();
    const written = readFileSync(snapshotOf(dir.path));
    const gauge = async (engine: Engine, name: string) => (await engine.metrics.registry.getSingleMetric(name)!.get()).values;
    expect((await gauge(engine, 'monitoring_state_snapshot_position'))[0]!.value).toBe(await engine.store.head());
    expect((await gauge(engine, 'monitoring_state_snapshot_bytes'))[0]!.value).toBe(written.length);
    const ids: string[] = [];
    for (let i = 5; i < 8; i++)
      ids.push((await engine.decide(tx(`K-${i}`, { anonymizedUserData: { uniqueId: `k-${i}` } }), biz)).transactionId);
    const now = clock.now().getTime();
    const live = observable(engine.monitoring.state, now, ids);
    await engine.close();
    expect(readFileSync(snapshotOf(dir.path)).equals(written)).toBe(true);
    const reopened = await open(dir.path, clock);
    try {
      // The three decisions after the snapshot are in the state again, replayed from the log.
      expect(observable(reopened.monitoring.state, now, ids)).toEqual(live);
      expect((await gauge(reopened, 'monitoring_state_rebuild_seconds')).map((v) => v.labels)).toEqual([{ from_snapshot: '1' }]);
    } finally {
      await reopened.close();
    }
  } finally {
    dir.remove();
  }
});
