import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { requestStream } from '../../src/cdd/events.js';
import { createEngine, type Engine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';
import { individual } from './fixtures.js';

const dirs: { remove(): void }[] = [];
const open: Engine[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
  for (const d of dirs.splice(0)) d.remove();
});

async function engineAt(path: string, clock = new ManualClock('2026-02-01T00:00:00.000Z')): Promise<Engine> {
  const engine = await createEngine({ dataDir: path, logger: silentLogger, tailIntervalMs: 0, clock, screeningCacheDir });
  open.push(engine);
  return engine;
}

const actor = { businessId: 'biz_durable' };
const CHECKS = ['adverse media', 'bvn', 'nin', 'pep', 'sanctions', 'voters card'];

async function typesOf(engine: Engine, requestId: string): Promise<string[]> {
  return (await engine.store.readStream(requestStream(requestId))).map((e) => e.type);
}

describe('durable cdd requests', () => {
  it('finishes a request interrupted mid-run after a restart, without re-running recorded checks', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await engineAt(dir.path);
    await first.cdd.customers.create(actor, individual('dur-1') as never);
    const { requestId } = await first.cdd.requests.start(actor, { customerUniqueId: 'dur-1', workflowSlug: 'individual-standard' });
    // The state a crash leaves: the run claimed the request and recorded one check, then the process died.
    const bvn = {
      checkId: 'bvn',
      results: [
        {
          name: 'compareNames',
          result: 'success',
          note: 'recorded before the crash',
          status: 'completed',
          values: ['a', 'a'],
          startDate: 'x',
          endDate: 'x',
        },
      ],
    };
    await first.store.append(requestStream(requestId), [{ type: 'CddRequestStarted', data: { requestId, attempt: 1 } }], {
      expectedVersion: 1,
      metadata: actor,
    });
    await first.store.append(
      requestStream(requestId),
      [
        {
          type: 'CddCheckRecorded',
          data: { requestId, customerUniqueId: 'dur-1', subject: { role: 'customer', uniqueId: 'dur-1', name: 'x' }, check: bvn },
        },
      ],
      { expectedVersion: 2, metadata: actor },
    );
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = await engineAt(dir.path);
    expect(await second.cdd.runPending()).toBe(1);
    expect(await second.cdd.runPending()).toBe(0);
    const types = await typesOf(second, requestId);
    expect(types.filter((t) => t === 'CddRequestStarted')).toHaveLength(2);
    expect(types.filter((t) => t === 'CddRequestCompleted')).toHaveLength(1);
    const recorded = (await second.store.readStream(requestStream(requestId))).filter((e) => e.type === 'CddCheckRecorded');
    expect(recorded.map((e) => (e.data as { check: { checkId: string } }).check.checkId).sort()).toEqual(CHECKS);
    const view = await second.cdd.customers.get(actor.businessId, 'dur-1');
    expect(view.checks.customer.bvn!.results[0]!.note).toBe('recorded before the crash');
  });

  it('runs a request exactly once when two processes race for it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = await engineAt(dir.path);
    const b = await engineAt(dir.path);
    await a.cdd.customers.create(actor, individual('dur-2') as never);
    const { requestId } = await a.cdd.requests.start(actor, { customerUniqueId: 'dur-2', workflowSlug: 'individual-standard' });
    await b.projections.catchUp(b.db, b.store);
    const [ranA, ranB] = await Promise.all([a.cdd.runPending(), b.cdd.runPending()]);
    expect(ranA + ranB).toBe(1);
    const types = await typesOf(a, requestId);
    expect(types.filter((t) => t === 'CddRequestCompleted')).toHaveLength(1);
    expect(types.filter((t) => t === 'CddCheckRecorded')).toHaveLength(CHECKS.length);
  });
});
