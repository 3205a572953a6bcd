import { expect, it } from 'vitest';
import type { IssuedKey } from '../../src/auth/index.js';
import { ManualClock } from '../../src/clock.js';
import { DEFAULT_PARTITIONS, decisionSubject, partitionOf } from '../../src/partitions/index.js';
import { testEngine } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { describePostgres } from '../postgres.js';
import { nodesPerTest, type ServedNode, serveNode, until } from './serving.js';

const INSTANT = '/api/v1/transaction-monitoring/instant';
const USERS = 12;
const ROUNDS = 3;

/** User u's i-th transaction: its device, accounts and address are the user's own, so every velocity key goes with the user. */
const body = (u: number, i: number) => {
  const b = tx(`MOVE-${u}-${i}`, {
    anonymizedUserData: { uniqueId: `move-user-${u}` },
    device: { deviceId: `move-device-${u}` },
    transactionData: {
      senderAccount: `1000000${String(u).padStart(2, '0')}0`,
      receiverAccount: `2000000${String(u).padStart(2, '0')}0`,
      amount: 10_000 + i,
    },
  });
  b.ipAddress = `102.89.1.${u}`;
  return b;
};

describePostgres('a partition moving between nodes under load', () => {
  const each = nodesPerTest();
  let key: IssuedKey;

  it('gives every decision the velocity a single node gives, while nodes join and partitions move', async () => {
    const clock = new ManualClock('2026-01-01T10:00:00.000Z');
    // No tail at all: a node knows another's decisions only from its builds and from what its own appends read, so
    // the counts are exact only if a partition's state is built before it is decided and the fence refuses the rest.
    const options = { clock, tailIntervalMs: 0 };
    const a = await serveNode(
      each.database.url,
      'node-a',
      async (engine) => {
        key = await engine.auth.issue({ name: 'switch', businessId: 'acme' });
        // A second business, built in the same reads of the log, with no decisions of its own.
        await engine.auth.issue({ name: 'other', businessId: 'beta' });
      },
      options,
    );
    each.nodes.push(a);
    await until('A holds and has built every partition', () => a.follower.built('acme')?.size === DEFAULT_PARTITIONS);

    const live: ServedNode[] = [a];
    const decidedBy = new Map<string, string>();
    let sent = 0;
    const send = async (u: number, i: number) => {
      // Round robin over the live nodes, as a balancer that knows nothing of partitions: most sends are forwarded.
      for (let attempt = 0; ; attempt++) {
        const node = live[sent++ % live.length]!;
        const res = await fetch(`${node.url}${INSTANT}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', apiKey: key.apiKey, apiSecret: key.apiSecret },
          body: JSON.stringify(body(u, i)),
        });
        if (res.status === 200) {
          decidedBy.set(`MOVE-${u}-${i}`, res.headers.get('x-decided-by')!);
          return;
        }
        // A partition between owners is refused with Retry-After: 1; sooner is fine here.
        expect(res.status, await res.text()).toBe(503);
        if (attempt > 200) throw new Error(`MOVE-${u}-${i} refused ${attempt} times`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    /** Each user's transactions one after another; the users at once. */
    const round = (from: number) =>
      Promise.all(
        Array.from({ length: USERS }, async (_, u) => {
          for (let i = from; i < from + ROUNDS; i++) await send(u, i);
        }),
      );

    await round(0);
    // B joins while the second round runs: A gives up half its partitions, B builds them and takes their decisions.
    const joinB = serveNode(each.database.url, 'node-b', undefined, options).then((b) => {
      each.nodes.push(b);
      live.push(b);
      return b;
    });
    await Promise.all([round(ROUNDS), joinB]);
    const b = await joinB;
    await until('A and B hold half each', () => a.leases.mine('acme').size === 32 && b.leases.mine('acme').size === 32);
    await round(2 * ROUNDS);
    // C joins during the fourth: partitions move from both.
    const joinC = serveNode(each.database.url, 'node-c', undefined, options).then((c) => {
      each.nodes.push(c);
      live.push(c);
      return c;
    });
    await Promise.all([round(3 * ROUNDS), joinC]);
    await round(4 * ROUNDS);
    const total = USERS * 5 * ROUNDS;
    expect(decidedBy.size).toBe(total);

    // Every acknowledged decision is in the log once.
    const logged = await a.engine.store.readAll({ types: ['TransactionDecided'], limit: 100_000 });
    expect(logged.length).toBe(total);
    // Partitions moved: some user's decisions were made by more than one node.
    const byUser = new Map<number, Set<string>>();
    for (const [reference, node] of decidedBy) {
      const u = Number(reference.split('-')[1]);
      byUser.set(u, (byUser.get(u) ?? new Set()).add(node));
    }
    expect([...byUser.values()].some((s) => s.size > 1)).toBe(true);
    // Each node's state holds the partitions it leases, and no other's.
    for (const n of each.nodes)
      for (const business of ['acme', 'beta']) expect(n.follower.built(business)).toEqual(n.leases.mine(business));

    // The same sequence, user by user, on one embedded node.
    const single = await testEngine({ clock });
    try {
      const stored = new Map(
        logged.map((e) => [(e.data as { reference: string }).reference, e.data as { features: { velocity: unknown } }]),
      );
      for (let u = 0; u < USERS; u++)
        for (let i = 0; i < 5 * ROUNDS; i++) {
          const alone = await single.engine.decide(body(u, i), { businessId: 'acme' });
          const there = await single.engine.monitoring.getTransaction('acme', alone.transactionId);
          expect(stored.get(`MOVE-${u}-${i}`)!.features.velocity, `MOVE-${u}-${i}`).toEqual(there.features.velocity);
        }
    } finally {
      await single.close();
    }
    // Each user's partition is one of 64, so the twelve users span the nodes' shares.
    expect(new Set(Array.from({ length: USERS }, (_, u) => partitionOf(decisionSubject(body(u, 0) as never), 64))).size).toBeGreaterThan(4);
  }, 120_000);
});
