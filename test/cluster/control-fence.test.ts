import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { Decision } from '../../src/monitoring/index.js';
import { tx } from '../monitoring/fixtures.js';
import { describePostgres } from '../postgres.js';
import { caughtUp, testCluster, type TestCluster } from './cluster.js';

const AT_ONCE = 80;
const fired = (d: Decision, rule: string) => d.ruleResult?.some((r) => r.id === rule) ?? false;

describePostgres('a list change acknowledged on one node is in force on every node', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await testCluster(2);
  }, 120_000);
  afterAll(async () => cluster.close());

  // Sent the moment node A acknowledges the change, before node B's tail has heard of it.
  const burst = (node: Engine, businessId: string, prefix: string, patch: Parameters<typeof tx>[1]) =>
    Promise.all(Array.from({ length: AT_ONCE }, (_, i) => node.decide(tx(`${prefix}-${i}`, patch), { businessId })));

  it('refuses on node B every transaction of a user blacklisted through node A, sent at once after the acknowledgement', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const businessId = 'biz_fence_users';
    const patch = { anonymizedUserData: { uniqueId: 'fenced-user' } };
    expect((await b.decide(tx('USER-BEFORE', patch), { businessId })).action.result).toBe('approved');
    await a.monitoring.addToBlacklist({ businessId }, 'users', 'fenced-user');
    const decisions = await burst(b, businessId, 'USER', patch);
    const through = decisions.filter((d) => d.action.result !== 'rejected' || !fired(d, 'BL_USER'));
    expect(`${through.length} of ${AT_ONCE} let through`).toBe(`0 of ${AT_ONCE} let through`);
  });

  it('approves on node B every transaction of an account taken off the blacklist through node A, sent at once after', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const businessId = 'biz_fence_accounts';
    await a.monitoring.addToBlacklist({ businessId }, 'accounts', '5550001111');
    const patch = { transactionData: { senderAccount: '5550001111' } };
    await caughtUp(b, await a.store.head());
    expect(fired(await b.decide(tx('ACCOUNT-BEFORE', patch), { businessId }), 'BL_ACCOUNT')).toBe(true);
    await a.monitoring.removeFromBlacklist({ businessId }, 'accounts', '5550001111');
    const decisions = await burst(b, businessId, 'ACCOUNT', patch);
    const refused = decisions.filter((d) => fired(d, 'BL_ACCOUNT'));
    expect(`${refused.length} of ${AT_ONCE} refused`).toBe(`0 of ${AT_ONCE} refused`);
  });

  it("leaves another business's decisions alone", async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    await a.monitoring.addToBlacklist({ businessId: 'biz_fence_other' }, 'users', 'someone-else');
    const decisions = await burst(b, 'biz_fence_quiet', 'QUIET', { anonymizedUserData: { uniqueId: 'someone-else' } });
    expect(decisions.filter((d) => fired(d, 'BL_USER'))).toEqual([]);
  });
});
