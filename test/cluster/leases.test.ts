import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { IssuedKey } from '../../src/auth/index.js';
import { DEFAULT_PARTITIONS } from '../../src/partitions/index.js';
import { tx } from '../monitoring/fixtures.js';
import { describePostgres } from '../postgres.js';
import { metric, nodesPerTest, type ServedNode, serveNode, until } from './serving.js';

const INSTANT = '/api/v1/transaction-monitoring/instant';

describePostgres('partition leases and forwarding across nodes', () => {
  const each = nodesPerTest();
  let key: IssuedKey;

  /** Node A sets the business up (its first key records the partition count), then B joins. */
  const twoNodes = async () => {
    const a = await serveNode(each.database.url, 'node-a', async (engine) => {
      key = await engine.auth.issue({ name: 'switch', businessId: 'acme' });
    });
    each.nodes.push(a);
    await until('A holds every partition', () => a.leases.owned === DEFAULT_PARTITIONS);
    const b = await serveNode(each.database.url, 'node-b');
    each.nodes.push(b);
    await until('A and B hold half each', () => a.leases.owned === 32 && b.leases.owned === 32);
    // Each has read the other's leases since (its view is as of its last renewal).
    await until('A and B see each other’s leases', () => subjectOf(b, a) !== undefined && subjectOf(a, b) !== undefined);
    return [a, b] as const;
  };

  const post = async (node: ServedNode, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${node.url}${INSTANT}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', apiKey: key.apiKey, apiSecret: key.apiSecret, ...headers },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      decidedBy: res.headers.get('x-decided-by'),
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as any,
    };
  };

  /** A subject of `kind` whose partition `viewer` last read to be `owner`'s, if one of the first thousand is. */
  const subjectOf = (owner: ServedNode, viewer: ServedNode, kind: 'user' | 'account' = 'user'): string | undefined => {
    for (let i = 0; i < 1000; i++) {
      const id = `${kind}-${i}`;
      if (viewer.leases.ownerElsewhere('acme', { kind, id })?.nodeId === owner.id) return id;
    }
    return undefined;
  };
  const userOf = (owner: ServedNode, viewer: ServedNode): string => subjectOf(owner, viewer)!;

  it('spreads each business over the live nodes, shows it in /metrics, and hands a closing node its share back', async () => {
    const [a, b] = await twoNodes();
    expect(await metric(a.url, 'partitions_owned')).toBe(32);
    expect(await metric(b.url, 'partitions_owned')).toBe(32);
    const { rows } = await sql<{ node_id: string; n: number }>`select node_id, count(*)::int as n from partition_leases
      where business_id = 'acme' group by node_id order by node_id`.execute(a.engine.db);
    expect(rows).toEqual([
      { node_id: 'node-a', n: 32 },
      { node_id: 'node-b', n: 32 },
    ]);
    // GET /partitions: where a balancer routing by X-Routing-Key sends each partition.
    const listed = (await (await fetch(`${a.url}/partitions`)).json()) as {
      node: string;
      businesses: { businessId: string; partitions: number; owners: { partition: number; nodeId: string; url: string }[] }[];
    };
    expect(listed.node).toBe('node-a');
    expect(listed.businesses.map((b) => [b.businessId, b.partitions])).toEqual([['acme', 64]]);
    const owners = listed.businesses[0]!.owners;
    expect(owners.map((o) => o.partition)).toEqual(Array.from({ length: 64 }, (_, p) => p));
    expect(owners.filter((o) => o.nodeId === 'node-b').every((o) => o.url === b.url)).toBe(true);
    expect(owners.filter((o) => o.nodeId === 'node-a')).toHaveLength(32);
    // A third node gets its share as the others give theirs up: 22, 22 and 20.
    const c = await serveNode(each.database.url, 'node-c');
    each.nodes.push(c);
    await until(
      'three shares',
      () => [a, b, c].every((n) => n.leases.owned >= 20) && a.leases.owned + b.leases.owned + c.leases.owned === 64,
    );
    expect([a, b, c].map((n) => n.leases.owned).every((n) => n <= 22)).toBe(true);
    // A clean close releases at once: its rows are gone before any lease could lapse, and the others take them.
    await each.nodes.pop()!.close();
    const left = await sql<{ n: number }>`select count(*)::int as n from partition_leases where node_id = 'node-c'`.execute(a.engine.db);
    expect(left.rows[0]!.n).toBe(0);
    await until('A and B hold half each again', () => a.leases.owned === 32 && b.leases.owned === 32);
  }, 60_000);

  it("sends a decision to its partition's owner, whose answer comes back unchanged, and never sends one on twice", async () => {
    const [a, b] = await twoNodes();
    const ofB = userOf(b, a);
    const ofA = userOf(a, b);

    const forwarded = await post(a, tx('FWD-1', { anonymizedUserData: { uniqueId: ofB } }));
    expect(forwarded.status).toBe(200);
    expect(forwarded.decidedBy).toBe('node-b');
    expect(await metric(a.url, 'decisions_forwarded_total{outcome="answered"}')).toBe(1);
    const stored = await b.engine.monitoring.getTransaction('acme', forwarded.body.data.transactionId);
    expect(stored.transactionId).toBe(forwarded.body.data.transactionId);

    const own = await post(a, tx('FWD-2', { anonymizedUserData: { uniqueId: ofA } }));
    expect([own.status, own.decidedBy]).toEqual([200, 'node-a']);

    // The account is the subject when no user is named.
    const account = subjectOf(b, a, 'account')!;
    const byAccount = await post(a, tx('FWD-3', { anonymizedUserData: null, transactionData: { senderAccount: account } }));
    expect([byAccount.status, byAccount.decidedBy]).toEqual([200, 'node-b']);

    // A request another node already sent on is not sent on again; A, not holding the partition's state, refuses it.
    const marked = await post(a, tx('FWD-4', { anonymizedUserData: { uniqueId: ofB } }), { 'X-Forwarded-By': 'node-b' });
    expect([marked.status, marked.decidedBy, marked.retryAfter]).toEqual([503, 'node-a', '1']);
    expect(marked.body.message).toMatch(/^partition \d+ of business acme is not this node's/);

    // The owner's refusal comes back as it was given: same reference, another body.
    const conflict = await post(a, tx('FWD-1', { anonymizedUserData: { uniqueId: ofB }, transactionData: { amount: 1 } }));
    expect([conflict.status, conflict.decidedBy]).toEqual([409, 'node-b']);
    // A body the route refuses is refused here, naming the field, without a hop.
    const bad = await post(a, { transactionData: { reference: 7 } });
    expect([bad.status, bad.decidedBy]).toEqual([400, 'node-a']);
    expect(JSON.stringify(bad.body)).toContain('reference');
  }, 60_000);

  it('refuses, rather than decide without the state, when the owner cannot be reached; a decided reference is answered anywhere', async () => {
    const [a, b] = await twoNodes();
    const ofB = userOf(b, a);
    await b.stopServing();
    const refused = await post(a, tx('DOWN-1', { anonymizedUserData: { uniqueId: ofB } }));
    expect([refused.status, refused.decidedBy, refused.retryAfter]).toEqual([503, 'node-a', '1']);
    expect(await metric(a.url, 'decisions_forwarded_total{outcome="unreachable"}')).toBe(1);
    // The owner decides it (here in-process); idempotency by reference holds across nodes, so A, once its tail has
    // B's decision, answers the same reference with it though it does not hold the partition.
    const owned = await b.engine.decide(tx('DOWN-1', { anonymizedUserData: { uniqueId: ofB } }), { businessId: 'acme' });
    await until('A answers B’s decision', async () => {
      const again = await post(a, tx('DOWN-1', { anonymizedUserData: { uniqueId: ofB } }));
      return again.status === 200 && again.body.data.transactionId === owned.transactionId;
    });
  }, 60_000);
});
