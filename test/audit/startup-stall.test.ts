import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';

/** A server's engine: it follows the log (tail and tree timers on), as `npm start` runs it. */
const serverEngine = (dataDir: string) =>
  createEngine({ dataDir, logger: silentLogger, watchRules: false, workerIntervalMs: 0, screeningCacheDir });

async function fill(engine: Engine, events: number): Promise<void> {
  for (let at = 0; at < events; at += 2000) {
    await engine.store.appendMany(
      [
        {
          streamId: `filler-${engine.store.notifiedPosition}`,
          events: Array.from({ length: 2000 }, (_, i) => ({ type: 'AuditTestFiller', data: { i: at + i } })),
        },
      ],
      { businessId: 'system', actor: 'test' },
    );
  }
}

describe('a restart on a log of tens of thousands of events', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir('ce-stall-');
  });
  afterEach(() => dir.remove());

  it.each([
    ['from the right edge recorded with the last tree head', true],
    ['with no tree head recorded (the whole log hashed before the first answer)', false],
  ])(
    'answers /healthz within 100 ms from its first 200 on, %s; proofs of early events verify',
    async (_, recordHead) => {
      const first = await serverEngine(dir.path);
      await fill(first, 40_000);
      if (recordHead) await first.audit.checkpoint();
      await fill(first, 10_000);
      await first.close();

      const engine = await serverEngine(dir.path);
      const server = serve({ fetch: createApp(engine).fetch, port: 0, hostname: '127.0.0.1' });
      try {
        await once(server, 'listening');
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
        const latencies: number[] = [];
        const statuses = new Set<number>();
        // The first answer also starts the client's HTTP stack; the ones after it are what is measured.
        expect((await fetch(url)).status).toBe(200);
        const proving = engine.audit.prove(5);
        // One request due every 20 ms, its latency counted from when it was due: a stall between two requests counts too.
        const start = performance.now();
        for (let due = start; due < start + 3000; due += 20) {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
          statuses.add((await fetch(url)).status);
          latencies.push(performance.now() - due);
        }
        expect([...statuses]).toEqual([200]);
        expect(Math.max(...latencies), `slowest of ${latencies.length} answers`).toBeLessThan(100);
        // The subtree roots rebuilt in the background give proofs that verify (prove checks each before handing it out).
        expect((await proving).event.position).toBe(5);
      } finally {
        await new Promise((resolve) => server.close(resolve));
        await engine.close();
      }
    },
    240_000,
  );
});
