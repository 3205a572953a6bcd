// DECISION_THREADS: decisions made in worker threads (src/monitoring/decision-threads.ts), each its share of the
// partitions, on a real SQLite file through the one writer thread.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, EngineOptions } from '../../src/engine.js';
import { ConflictError } from '../../src/errors.js';
import { decisionPartition, threadOfPartition } from '../../src/monitoring/thread-share.js';
import { BUNDLED_RULES_DIR } from '../../src/package-files.js';
import { DEFAULT_PARTITIONS, type SubjectFields } from '../../src/partitions/index.js';
import type { IssuedKey } from '../../src/auth/index.js';
import { openEngine, tempDir, testApi, type TestApi } from '../helpers.js';
import { tx } from './fixtures.js';

const actor = { businessId: 'default' };
const threadOf = (request: Record<string, unknown>) =>
  threadOfPartition(decisionPartition(request as unknown as SubjectFields, DEFAULT_PARTITIONS), 2);

/** An address of the user's own. */
const ipOf = (user: string) => `10.9.${user.length}.${[...user].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 250}`;

/**
 * A user's transaction: its device, accounts and address are the user's own, so every window a rule reads is its
 * subject's alone (a window keyed by what several subjects share counts each thread's share: docs/architecture.md).
 */
const userTx = (reference: string, user: string, amount: number) => ({
  ...tx(reference, {
    anonymizedUserData: { uniqueId: user },
    device: { deviceId: `dev-${user}` },
    transactionData: { amount, senderAccount: `acct-${user}`, receiverAccount: `rcv-${user}` },
  }),
  ipAddress: ipOf(user),
});

/** Velocity (counts and sums by user, device and account), a burst of one user, lists added and removed, no user. */
async function mixedTraffic(engine: Engine): Promise<string[]> {
  const amounts = [25_000, 1_500_000, 4_600_000, 300_000, 4_750_000, 900_000, 2_100_000];
  const seen: string[] = [];
  const decide = async (request: Record<string, unknown>) => {
    const d = await engine.decide(request);
    const rules = (d.ruleResult ?? []).map((r) => r.id).sort();
    seen.push(`${(request.transactionData as { reference: string }).reference} ${d.action.result} ${d.riskScore} ${rules.join(',')}`);
  };
  for (let step = 0; step < 72; step++) {
    if (step === 20) await engine.monitoring.addToBlacklist(actor, 'accounts', 'acct-u3');
    if (step === 30) await engine.monitoring.addToBlacklist(actor, 'users', 'u5');
    if (step === 44) await engine.monitoring.removeFromBlacklist(actor, 'accounts', 'acct-u3');
    // A burst of one user in the middle: the 10-minute and 1-hour counts fire.
    const user = step >= 50 && step < 62 ? 'u1' : `u${step % 8}`;
    await decide(userTx(`T-${step}`, user, amounts[step % amounts.length]!));
    // A transaction of no user: its subject is its sending account.
    if (step % 9 === 0) await decide(tx(`A-${step}`, { anonymizedUserData: null, transactionData: { senderAccount: 'acct-anon' } }));
  }
  return seen;
}

describe('decision threads', () => {
  const dir = tempDir();
  /** A copy of the bundled rules, which a test adds a rule to. */
  const rules = tempDir();
  let engine: Engine;
  beforeAll(async () => {
    cpSync(BUNDLED_RULES_DIR, rules.path, { recursive: true });
    engine = await openEngine(dir.path, { decisionThreads: 2, rulesDir: rules.path });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    dir.remove();
    rules.remove();
  });

  it('the same traffic gets the same decisions from two threads as from one', async () => {
    const users = Array.from({ length: 8 }, (_, i) => threadOf(userTx('x', `u${i}`, 1)));
    expect(new Set(users)).toEqual(new Set([0, 1]));
    const single = tempDir();
    const one = await openEngine(single.path);
    try {
      const expected = await mixedTraffic(one);
      expect(await mixedTraffic(engine)).toEqual(expected);
      // The traffic exercised what it is meant to: velocity, the burst and both lists.
      const text = expected.join('\n');
      for (const rule of ['BL_ACCOUNT', 'BL_USER', 'VEL_USER_10M']) expect(text).toContain(rule);
    } finally {
      await one.close();
      single.remove();
    }
  }, 120_000);

  it('a list entry acknowledged is in force at once for the decisions of every thread', async () => {
    const users = Array.from({ length: 16 }, (_, i) => `list-${i}`);
    const toMule = (user: string, n: number) => ({
      ...tx(`M-${user}-${n}`, {
        anonymizedUserData: { uniqueId: user },
        device: { deviceId: `dev-${user}` },
        transactionData: { senderAccount: `acct-${user}`, receiverAccount: 'mule-1' },
      }),
      ipAddress: ipOf(user),
    });
    expect(new Set(users.map((u) => threadOf(toMule(u, 0))))).toEqual(new Set([0, 1]));
    // Each thread has decided for its users, so their state is built and has seen the log before the entry.
    for (const u of users) expect((await engine.decide(toMule(u, 0))).action.result).toBe('approved');
    await engine.monitoring.addToBlacklist(actor, 'accounts', 'mule-1');
    const after = await Promise.all(users.map((u) => engine.decide(toMule(u, 1))));
    for (const d of after) expect(d.ruleResult?.map((r) => r.id)).toContain('BL_ACCOUNT');
  }, 60_000);

  it('answers a reference used again for another subject, on another thread, with 409', async () => {
    const first = userTx('SHARED-REF', 'ref-a', 10_000);
    let other = 'ref-b';
    for (let i = 0; threadOf(userTx('SHARED-REF', other, 10_000)) === threadOf(first); i++) other = `ref-b${i}`;
    const decided = await engine.decide(first);
    await expect(engine.decide(userTx('SHARED-REF', other, 10_000))).rejects.toBeInstanceOf(ConflictError);
    // The same body again is the first decision.
    expect((await engine.decide(first)).transactionId).toBe(decided.transactionId);
    // At once, on both threads: one decision stands, the other is refused.
    const [a, b] = await Promise.allSettled([
      engine.decide(userTx('RACED-REF', 'ref-a', 10_000)),
      engine.decide(userTx('RACED-REF', other, 10_000)),
    ]);
    expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
    const refused = [a, b].find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
  }, 60_000);

  it("reloads the rules in every thread, counts every thread's decisions, and runs a shadow on them", async () => {
    const users = ['reload-a', 'reload-b', 'reload-c', 'reload-d', 'reload-e', 'reload-f'];
    expect(new Set(users.map((u) => threadOf(userTx('x', u, 1))))).toEqual(new Set([0, 1]));
    writeFileSync(
      join(rules.path, 'zz-threads.rules'),
      'rule THREADS_RELOADED "Reloaded in every thread"\n  tags test\n  when transactionData.amount = 7_777\n  score 1\n  reason TR001 low "reloaded"\nend\n',
    );
    expect(await engine.monitoring.reloadRules()).toBe(true);
    const sources = await engine.monitoring.ruleSources();
    const files = Object.fromEntries([
      ...sources.files.map((f) => [f.path.split('/').pop()!, f.text]),
      ...sources.lists.map((l) => [`lists/${l.path.split('/').pop()!}`, l.text]),
    ]);
    await engine.shadows.deploy(actor, { files });
    const counted = async () =>
      (await engine.metrics.registry.getSingleMetric('monitoring_decisions_total')!.get()).values.reduce((n, v) => n + v.value, 0);
    const before = await counted();
    for (const u of users)
      expect((await engine.decide(userTx(`RL-${u}`, u, 7_777))).ruleResult?.map((r) => r.id)).toContain('THREADS_RELOADED');
    expect(await counted()).toBe(before + users.length);
    // The engine's thread reads what the deciding threads decided as soon as they answered.
    for (const u of users) expect((await engine.monitoring.decisionsOf('default', { kind: 'user', value: u })).length).toBe(1);
    await engine.shadows.settle('default');
    const report = await engine.shadows.report('default');
    expect(report.decisions).toBe(users.length);
    expect(report.changed).toBe(0);
    await engine.shadows.stop(actor);
  }, 60_000);

  it('restarts with two threads from the log and from a snapshot, windows intact', async () => {
    const burst = (n: number) => userTx(`RS-${n}`, 'restart-user', 10_000);
    for (let n = 0; n < 3; n++) expect((await engine.decide(burst(n))).ruleResult?.map((r) => r.id) ?? []).not.toContain('VEL_USER_10M');
    await engine.close();
    engine = await openEngine(dir.path, { decisionThreads: 2 });
    // The fourth of the user's transactions, after a replay of the log.
    expect((await engine.decide(burst(3))).ruleResult?.map((r) => r.id) ?? []).not.toContain('VEL_USER_10M');
    await engine.monitoring.writeSnapshot();
    await engine.close();
    engine = await openEngine(dir.path, { decisionThreads: 2 });
    // The fifth, after a restart from the snapshot: count(by user over 10 minutes) >= 5 fires.
    expect((await engine.decide(burst(4))).ruleResult?.map((r) => r.id)).toContain('VEL_USER_10M');
    expect((await engine.store.verifyChain()).ok).toBe(true);
  }, 120_000);
});

it('takes over a log one thread decided, and gives it back', async () => {
  const dir = tempDir();
  const burst = (n: number) => userTx(`SW-${n}`, 'switching-user', 10_000);
  const fired = async (engine: Engine, n: number) => (await engine.decide(burst(n))).ruleResult?.map((r) => r.id) ?? [];
  try {
    let engine = await openEngine(dir.path);
    for (let n = 0; n < 4; n++) expect(await fired(engine, n)).not.toContain('VEL_USER_10M');
    await engine.close();
    // Decisions of one thread carry no partition: the deciding thread places them by their subject, and counts them.
    engine = await openEngine(dir.path, { decisionThreads: 2 });
    expect(await fired(engine, 4)).toContain('VEL_USER_10M');
    await engine.close();
    engine = await openEngine(dir.path);
    expect(await fired(engine, 5)).toContain('VEL_USER_10M');
    await engine.close();
  } finally {
    dir.remove();
  }
}, 120_000);

describe('decision threads refused', () => {
  it.each<[Partial<EngineOptions>, RegExp]>([
    [{ dataDir: ':memory:' }, /in-memory database/],
    [{ writerThread: false }, /writer thread/],
    [{ ipCountry: () => 'NG' }, /ipCountry/],
    [{ decisionThreads: 0 }, /whole number from 1 to 64, got 0/],
    [{ databaseUrl: 'postgres://127.0.0.1:1/none' }, /SQLite file only: on PostgreSQL run more nodes/],
  ])('%o', async (options, message) => {
    const dir = tempDir();
    try {
      await expect(openEngine(options.dataDir ?? dir.path, { decisionThreads: 2, ...options })).rejects.toThrow(message);
    } finally {
      dir.remove();
    }
  });
});

describe('decision threads behind the HTTP route', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await testApi({ decisionThreads: 2, workerIntervalMs: 0 });
  }, 120_000);
  afterAll(() => api?.close());
  const instant = (body: unknown, key?: IssuedKey) => api.call('POST', '/api/v1/transaction-monitoring/instant', { body, key });

  it('answers 200, 400 naming the field, and 409 as the route on one thread does', async () => {
    const first = userTx('HTTP-1', 'http-a', 10_000);
    let other = 'http-b';
    for (let i = 0; threadOf(userTx('HTTP-1', other, 10_000)) === threadOf(first); i++) other = `http-b${i}`;
    const decided = await instant(first);
    expect(decided.status).toBe(200);
    expect(decided.body.data.action.result).toBe('approved');
    expect((await instant(first)).body).toEqual(decided.body);
    expect((await instant(userTx('HTTP-1', other, 10_000))).status).toBe(409);
    // Another business may use the same reference: its own decision.
    const b = await instant(userTx('HTTP-1', other, 10_000), api.tenantB);
    expect(b.status).toBe(200);
    expect(b.body.data.transactionId).not.toBe(decided.body.data.transactionId);
    const bad = await instant({ ...first, transactionData: { reference: 'HTTP-2', amount: 'lots' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('transactionData.amount');
  }, 60_000);
});
