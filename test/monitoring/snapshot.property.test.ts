import fc from 'fast-check';
import { deserialize, serialize } from 'node:v8';
import { expect, it, vi } from 'vitest';
import { newTransactionId, referenceKey, referenceKeyOf, transactionStream, type MonitoringEvent } from '../../src/monitoring/events.js';
import { planRebuild, RulesetRebuild, type RebuiltPart } from '../../src/monitoring/ruleset-rebuild.js';
import { HISTORY_HORIZON_MS, MonitoringState, type StateSnapshot } from '../../src/monitoring/state.js';
import { compileSources, loadRuleset, readRuleSources } from '../../src/rules/index.js';
import type { EventStore, StoredEvent } from '../../src/store/index.js';
import { tx } from './fixtures.js';
import { observable, velocityView } from './state-view.js';

const MIN = 60_000;
const START = Date.parse('2026-06-01T08:00:00.000Z');
const ruleset = await loadRuleset('rules');
/** The bundled rules and one more file reading history and a window they do not. */
const wider = await (async () => {
  const sources = await readRuleSources('rules');
  const more = `rule BACK_SOON "Same IP again within the hour"\n  when minutesSince(lastSeen(ip)) < 60 and firstSeen(device) = false and count(by device over 2 hours) >= 3\n  score 5\n  reason H001 low "IP back within an hour"\nend\n`;
  return compileSources({ ...sources, files: [...sources.files, { path: 'more.rules', text: more }] });
})();

/** The log as MonitoringState reads it at start-up. */
const logOf = (events: readonly StoredEvent[]) =>
  ({
    async *iterateAll({ after = 0, types }: { after?: number; types?: readonly string[] }) {
      for (const e of events) if (e.position > after && (!types || types.includes(e.type))) yield e;
    },
  }) as unknown as EventStore;

const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      user: fc.nat(3),
      receiver: fc.nat(4),
      device: fc.nat(3),
      amount: fc.integer({ min: 1, max: 2_000_000 }),
      advance: fc.integer({ min: 0, max: 90 * MIN }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('add' as const, 'remove' as const),
      list: fc.constantFrom('users' as const, 'accounts' as const),
      value: fc.nat(3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('device' as const), user: fc.nat(3), device: fc.nat(3) }) },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** Stored events for the steps, in two businesses, decisions spread over hours so some leave their windows. */
function eventsOf(steps: readonly Step[]): StoredEvent[] {
  let at = START;
  return steps.map((s, i) => {
    const businessId = `biz-${i % 2}`;
    const position = i + 1;
    let event: MonitoringEvent;
    let streamId = `other-${i}`;
    if (s.kind === 'decide') {
      at += s.advance;
      const reference = `S-${i}`;
      const request = tx(reference, {
        transactionData: { amount: s.amount, receiverAccount: `r-${s.receiver}`, senderAccount: `s-${s.user}` },
        anonymizedUserData: { uniqueId: `u-${s.user}` },
        device: { deviceId: `d-${s.device}` },
      });
      streamId = transactionStream(businessId, newTransactionId(referenceKey(businessId, reference), at));
      event = { type: 'TransactionDecided', data: { request, decidedAt: new Date(at).toISOString() } } as unknown as MonitoringEvent;
    } else if (s.kind === 'device')
      event = { type: 'CustomerDeviceSaved', data: { customerId: `u-${s.user}`, device: { deviceId: `d-${s.device}` } } };
    else
      event = { type: s.kind === 'add' ? 'BlacklistEntryAdded' : 'BlacklistEntryRemoved', data: { list: s.list, value: `v-${s.value}` } };
    return {
      ...event,
      position,
      eventId: `e-${i}`,
      streamId,
      streamVersion: 1,
      schemaVersion: 1,
      metadata: { businessId },
      recordedAt: new Date(at).toISOString(),
      hash: '',
    };
  });
}

/**
 * Law: restoring a snapshot taken after any prefix of the log and replaying the rest yields the same state as
 * replaying the whole log: same lists, velocity windows, history and idempotency filter.
 */
it('a snapshot of any prefix plus the rest of the log equals a replay of the whole log', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), async (steps, cutAt) => {
      const events = eventsOf(steps);
      const cut = Math.floor(cutAt * events.length);
      const now = Date.parse(events[events.length - 1]!.recordedAt) + 5 * MIN;
      const ids = events.filter((e) => e.type === 'TransactionDecided').map((e) => referenceKeyOf(e.streamId));

      const whole = new MonitoringState(ruleset);
      await whole.rebuild(logOf(events), now);

      const prefix = new MonitoringState(ruleset);
      await prefix.rebuild(logOf(events.slice(0, cut)), now);
      const snapshot = await prefix.snapshot(
        () => cut,
        (s) => deserialize(serialize(s)) as StateSnapshot,
      );
      expect(snapshot.position).toBe(cut);
      const restored = new MonitoringState(ruleset);
      expect(restored.restore(snapshot)).toBe(true);
      await restored.rebuild(logOf(events), now);

      expect(observable(restored, now, ids)).toEqual(observable(whole, now, ids));
    }),
    { numRuns: 60 },
  );
});

/**
 * Law: swapping in rules that read history the current ones do not keep, and have a window of their own, yields
 * the same state as replaying the whole log under the new rules; swapping back carries the shared part over.
 */
it('a swap to rules reading more history equals a replay of the whole log under them, and back', async () => {
  expect(wider.history.keys.filter((k) => !ruleset.history.keys.includes(k))).toEqual(['ip']);
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
      const events = eventsOf(steps);
      const now = Date.parse(events[events.length - 1]!.recordedAt) + 5 * MIN;
      const ids = events.filter((e) => e.type === 'TransactionDecided').map((e) => referenceKeyOf(e.streamId));
      const replayed = async (rules: typeof ruleset) => {
        const state = new MonitoringState(rules);
        await state.rebuild(logOf(events), now);
        return state;
      };

      const swapped = await replayed(ruleset);
      await swapped.swap(wider, logOf(events), now);
      expect(observable(swapped, now, ids)).toEqual(observable(await replayed(wider), now, ids));
      await swapped.swap(ruleset, logOf(events), now);
      expect(observable(swapped, now, ids)).toEqual(observable(await replayed(ruleset), now, ids));
    }),
    { numRuns: 60 },
  );
});

/**
 * Law: a swap's rebuild made elsewhere (the rebuild thread) and handed over part by part, each part through the
 * structured clone a thread's message is, equals the same rebuild made in place, whatever the parts' size: a
 * business's windows split by key and its history by pair or key, each part taken in on its own.
 */
it('a rebuild handed over in parts of any size equals the rebuild made in place', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 6 }), async (steps, entries) => {
      const events = eventsOf(steps);
      const now = Date.parse(events[events.length - 1]!.recordedAt) + 5 * MIN;
      const plan = planRebuild(ruleset, wider, now, HISTORY_HORIZON_MS)!;
      const here = new RulesetRebuild(wider, plan);
      for (const e of events) if (e.type === 'TransactionDecided') here.record(e);
      const there = new RulesetRebuild(wider, plan);
      const parts = [...here.parts(entries)];
      for (const part of parts) there.absorb(deserialize(serialize(part)) as RebuiltPart);
      const view = (r: RulesetRebuild) =>
        new Map([...r.rebuilt].map(([id, b]) => [id, { velocity: velocityView(b.velocity!.snapshot()), history: b.history.snapshot() }]));
      expect(view(there)).toEqual(view(here));
      // No part holds more than `entries` entries but one window larger than that alone.
      for (const { velocity } of parts)
        for (const f of velocity?.features.values() ?? []) expect(f.keys.length === 1 || f.entries.times.length <= entries).toBe(true);
    }),
    { numRuns: 60 },
  );
});

/** A log whose first read waits until released, and that reads the events added to it meanwhile. */
function pausingLog(events: StoredEvent[]) {
  let release!: () => void;
  let paused!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (paused = resolve));
  let first = true;
  const log = {
    async *iterateAll({ after = 0, types }: { after?: number; types?: readonly string[] }) {
      if (first) {
        first = false;
        paused();
        await released;
      }
      for (const e of events) if (e.position > after && (!types || types.includes(e.type))) yield e;
    },
  } as unknown as EventStore;
  return { log, reached, release };
}

/**
 * Law: decisions go on while a swap rebuilds state from the log, and the events committed meanwhile still reach
 * the rebuilt state: the result equals a replay of the whole log under the new rules.
 */
it('a swap rebuilds while decisions go on, and catches up with what was committed meanwhile', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), async (steps, cutAt) => {
      const events = eventsOf(steps);
      const cut = Math.max(1, Math.floor(cutAt * events.length));
      const now = Date.parse(events[events.length - 1]!.recordedAt) + 5 * MIN;
      const ids = events.filter((e) => e.type === 'TransactionDecided').map((e) => referenceKeyOf(e.streamId));
      const state = new MonitoringState(ruleset);
      await state.rebuild(logOf(events.slice(0, cut)), now);
      const logged = events.slice(0, cut);
      const { log, reached, release } = pausingLog(logged);
      const swapped = state.swap(wider, log, now);
      const swapDone = swapped.then(() => 'swapped');
      // The rebuild is paused inside the log: the gate is open, so a decision arriving now would not wait.
      expect(await Promise.race([reached.then(() => 'paused'), swapDone])).toBe('paused');
      expect(await Promise.race([state.ready.then(() => 'open'), new Promise((r) => setTimeout(() => r('closed'), 50))])).toBe('open');
      const meanwhile = events.slice(cut);
      logged.push(...meanwhile);
      state.apply(meanwhile);
      release();
      await swapped;
      const replayed = new MonitoringState(wider);
      await replayed.rebuild(logOf(events), now);
      expect(observable(state, now, ids)).toEqual(observable(replayed, now, ids));
    }),
    { numRuns: 40 },
  );
});

it('a swap catches up in further passes while more than a short tail was committed during the last', async () => {
  const events = eventsOf(
    Array.from({ length: 2600 }, (_, i) => ({
      kind: 'decide' as const,
      user: i % 4,
      receiver: i % 5,
      device: i % 3,
      amount: 100 + i,
      advance: 1000,
    })),
  );
  const now = Date.parse(events[events.length - 1]!.recordedAt) + 5 * MIN;
  const ids = events.map((e) => referenceKeyOf(e.streamId));
  const state = new MonitoringState(ruleset);
  const logged = events.slice(0, 100);
  await state.rebuild(logOf(logged), now);
  const { log, reached, release } = pausingLog(logged);
  const reads = vi.spyOn(log, 'iterateAll');
  const swapped = state.swap(wider, log, now);
  await reached;
  logged.push(...events.slice(100));
  state.apply(events.slice(100));
  release();
  await swapped;
  expect(reads).toHaveBeenCalledTimes(3);
  const replayed = new MonitoringState(wider);
  await replayed.rebuild(logOf(events), now);
  expect(observable(state, now, ids)).toEqual(observable(replayed, now, ids));
});

it('restores a snapshot holding more history than the ruleset reads, and refuses one holding less', async () => {
  const log = logOf(eventsOf([{ kind: 'decide', user: 1, receiver: 1, device: 1, amount: 500, advance: 0 }]));
  const narrow = new MonitoringState(ruleset);
  await narrow.rebuild(log, START + MIN);
  const broad = new MonitoringState(wider);
  await broad.rebuild(log, START + MIN);
  const take = (state: MonitoringState) =>
    state.snapshot(
      () => 1,
      (s) => deserialize(serialize(s)) as StateSnapshot,
    );
  const fromBroad = new MonitoringState(ruleset);
  expect(fromBroad.restore(await take(broad))).toBe(true);
  expect(observable(fromBroad, START + MIN, [])).toEqual(observable(narrow, START + MIN, []));
  expect(new MonitoringState(wider).restore(await take(narrow))).toBe(false);
});

it('refuses a snapshot that lacks a velocity feature of the ruleset', async () => {
  const state = new MonitoringState(ruleset);
  await state.rebuild(logOf(eventsOf([{ kind: 'decide', user: 1, receiver: 1, device: 1, amount: 500, advance: 0 }])), START + MIN);
  const snapshot = await state.snapshot(
    () => 1,
    (s) => s,
  );
  const [business] = snapshot.businesses.values();
  const [first] = business!.velocity.features.keys();
  business!.velocity.features.delete(first!);
  expect(new MonitoringState(ruleset).restore(snapshot)).toBe(false);
});
