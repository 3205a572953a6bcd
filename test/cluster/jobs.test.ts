import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { requestStream, scheduleStream } from '../../src/cdd/events.js';
import { requestClaim } from '../../src/cdd/worker.js';
import type { Engine } from '../../src/engine.js';
import { checkStream } from '../../src/screening/events.js';
import { individual } from '../cdd/fixtures.js';
import { tempDir } from '../helpers.js';
import { describePostgres } from '../postgres.js';
import { startReceiver } from '../webhooks/receiver.js';
import { caughtUp, testCluster, type TestCluster } from './cluster.js';

const DAY = 86_400_000;
const FINAL = ['CddRequestCompleted', 'CddRequestAwaitingConfirmation'];
const typesOf = async (node: Engine, stream: string) => (await node.store.readStream(stream)).map((e) => e.type);
const count = (types: string[], ...of: string[]) => types.filter((t) => of.includes(t)).length;

async function startRequests(node: Engine, businessId: string, ids: string[]): Promise<string[]> {
  const requests: string[] = [];
  for (const id of ids) {
    await node.cdd.customers.create({ businessId }, individual(id) as never);
    requests.push((await node.cdd.requests.start({ businessId }, { customerUniqueId: id, workflowSlug: 'individual-standard' })).requestId);
  }
  return requests;
}

describePostgres('background jobs with two nodes working', () => {
  let cluster: TestCluster;
  const clock = new ManualClock('2026-03-01T00:00:00.000Z');
  beforeAll(async () => {
    cluster = await testCluster(2, { clock });
  }, 120_000);
  afterAll(async () => cluster.close());

  it('completes each screening check once and delivers its result once', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const receiver = await startReceiver();
    try {
      const { businessId } = await a.auth.issue({ name: 'screens' });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const check = await a.screening.submit({ businessId }, { kind: 'sanction', text: `Person Number ${i}`, callbackUrl: receiver.url });
        ids.push(check.id);
      }
      await caughtUp(b, await a.store.head());
      const ran = await Promise.all([a.screening.runPending(), b.screening.runPending(), a.screening.runPending()]);
      expect(ran.reduce((x, y) => x + y)).toBe(20);
      for (const id of ids) expect(await typesOf(a, checkStream(id))).toEqual(['ScreeningCheckRequested', 'ScreeningCheckCompleted']);
      await caughtUp(b, await a.store.head());
      await Promise.all([a.webhooks.runDue(), b.webhooks.runDue()]);
      expect(receiver.received).toHaveLength(20);
    } finally {
      await receiver.close();
    }
  });

  it('runs each CDD request on one node: one start, each check recorded once, one outcome', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    const requests = await startRequests(a, 'biz_cddjobs', ['job1', 'job2', 'job3', 'job4', 'job5', 'job6']);
    await caughtUp(b, await a.store.head());
    const finished = await Promise.all([a.cdd.runPending(), b.cdd.runPending(), b.cdd.runPending(), a.cdd.runPending()]);
    expect(finished.reduce((x, y) => x + y)).toBe(requests.length);
    for (const id of requests) {
      const types = await typesOf(a, requestStream(id));
      expect(count(types, 'CddRequestStarted')).toBe(1);
      expect(count(types, ...FINAL)).toBe(1);
      const checks = (await a.store.readStream(requestStream(id)))
        .filter((e) => e.type === 'CddCheckRecorded')
        .map((e) => (e.data as { check: { checkId: string } }).check.checkId);
      expect(new Set(checks).size).toBe(checks.length);
    }
  });

  it('fires each due schedule once however many nodes look', async () => {
    const [a, b] = cluster.nodes as [Engine, Engine];
    await startRequests(a, 'biz_schedules', ['mon1', 'mon2', 'mon3']);
    await a.cdd.runPending();
    // Every schedule so far (this business's and the previous test's) was made at the clock's start: all are due.
    const schedules = [];
    for (const businessId of ['biz_schedules', 'biz_cddjobs'])
      for (const s of (await a.cdd.scheduler.list(businessId, { page: 1, limit: 100 })).data) schedules.push({ businessId, ...s });
    expect(schedules.length).toBeGreaterThanOrEqual(3);
    clock.advance(90 * DAY);
    await caughtUp(b, await a.store.head());
    const fired = (await Promise.all([a.cdd.scheduler.runDue(), b.cdd.scheduler.runDue(), a.cdd.scheduler.runDue()])).flat();
    expect(fired).toHaveLength(schedules.length);
    for (const s of schedules)
      expect(count(await typesOf(a, scheduleStream(s.businessId, s.customerUniqueId, s.workflowSlug)), 'CddScheduleFired')).toBe(1);
  });
});

describePostgres('a node stops in the middle of a CDD request', () => {
  it('leaves it to the other node while it holds it, which takes it over once the node closes', async () => {
    const cluster = await testCluster(2);
    try {
      const [a, b] = cluster.nodes as [Engine, Engine];
      const [request] = await startRequests(a, 'biz_closing', ['close1']);
      let finish!: () => void;
      const held = a.store.exclusive(requestClaim(request!), () => new Promise<void>((r) => (finish = r)));
      await caughtUp(b, await a.store.head());
      await new Promise((r) => setTimeout(r, 100));
      expect(await b.cdd.runPending()).toBe(0);
      await a.close();
      expect(await b.cdd.runPending()).toBe(1);
      const types = await typesOf(b, requestStream(request!));
      expect([count(types, 'CddRequestStarted'), count(types, ...FINAL)]).toEqual([1, 1]);
      finish();
      await held;
    } finally {
      await cluster.close();
    }
  }, 120_000);

  it('takes over the request of a node killed with SIGKILL as soon as the server drops its connection', async () => {
    const cluster = await testCluster(1);
    const dir = tempDir('ce-dying-');
    try {
      const [b] = cluster.nodes as [Engine];
      const [request] = await startRequests(b, 'biz_dying', ['dying1']);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/cluster/claim-holder.ts', cluster.database.url, dir.path, requestClaim(request!)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
        child.once('exit', (code) => reject(new Error(`the holding node exited (${code}) before it held the request`)));
      });
      expect(await b.cdd.runPending()).toBe(0);
      expect(await typesOf(b, requestStream(request!))).toEqual(['CddRequestCreated']);
      child.kill('SIGKILL');
      await exited;
      // The server frees a dead client's session locks when it sees the socket close: promptly, but not synchronously.
      let finished = 0;
      for (let i = 0; i < 100 && finished === 0; i++) {
        finished = await b.cdd.runPending();
        if (finished === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(finished).toBe(1);
      const types = await typesOf(b, requestStream(request!));
      expect([count(types, 'CddRequestStarted'), count(types, ...FINAL)]).toEqual([1, 1]);
    } finally {
      await cluster.close();
      dir.remove();
    }
  }, 300_000);
});
