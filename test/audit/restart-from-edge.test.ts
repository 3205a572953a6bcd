import { once } from 'node:events';
import { cpSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine.js';
import { leafOf } from '../../src/audit/leaf.js';
import { nodeHash, rootOf } from '../../src/audit/merkle.js';
import { createApp } from '../../src/http/app.js';
import { screeningCacheDir, tempDir } from '../helpers.js';
import { BACKENDS, createTestDatabase, skipBackend, type TestDatabase } from '../postgres.js';

/** A logger that keeps the messages of its warnings, to see which way the tree went at start. */
function warnings(): { logger: EngineOptions['logger']; messages: string[] } {
  const messages: string[] = [];
  const sink = new Writable({
    write(line: Buffer, _encoding, done) {
      messages.push((JSON.parse(line.toString()) as { msg: string }).msg);
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), messages };
}

async function fill(engine: Engine, events: number): Promise<void> {
  for (let at = 0; at < events; at += 2000) {
    await engine.store.appendMany(
      [
        {
          streamId: `filler-${engine.store.notifiedPosition}`,
          events: Array.from({ length: Math.min(2000, events - at) }, (_, i) => ({ type: 'AuditTestFiller', data: { i: at + i } })),
        },
      ],
      { businessId: 'system', actor: 'test' },
    );
  }
}

// Timings belong to bench/audit-restart.ts; this checks the mechanism that keeps a restart short: the tree goes on
// from the right edge recorded with the last tree head or stored by the server (with or without tree heads),
// reading only the events after it, and proofs of older events take their subtree roots from the stored ones,
// checked against that edge, never blindly; an edge the log does not match is never gone on from.
describe.each(BACKENDS)('%s: a restart on a log of tens of thousands of events', (backend) => {
  let dir: ReturnType<typeof tempDir>;
  let database: TestDatabase | undefined;
  /** A server's engine: it follows the log (tail and tree timers on), as `npm start` runs it. */
  const serverEngine = (logger = warnings().logger, options: Partial<EngineOptions> = {}) =>
    createEngine({
      dataDir: dir.path,
      ...(database ? { databaseUrl: database.url } : {}),
      logger,
      watchRules: false,
      workerIntervalMs: 0,
      screeningCacheDir,
      ...options,
    });

  /** A log of 40,000 events that a server filled and closed (so its edge is stored), built once and copied per test. */
  let filled: { dir: ReturnType<typeof tempDir>; database: TestDatabase | undefined } | undefined;
  beforeAll(async () => {
    if (skipBackend(backend)) return;
    dir = tempDir('ce-restart-filled-');
    database = backend === 'sqlite' ? undefined : await createTestDatabase();
    filled = { dir, database };
    const first = await serverEngine();
    await fill(first, 40_000);
    await first.close();
  }, 240_000);
  afterAll(async () => {
    await filled?.database?.drop();
    filled?.dir.remove();
  });

  beforeEach(async (context) => {
    if (skipBackend(backend)) return context.skip();
    dir = tempDir('ce-restart-');
    database = backend === 'sqlite' ? undefined : await createTestDatabase();
  });
  afterEach(async () => {
    if (skipBackend(backend)) return;
    await database?.drop();
    dir.remove();
  });

  /** This test's log becomes a copy of the filled one: 40,000 events, the edge stored at shutdown, no tree head. */
  async function fromFilledLog(): Promise<void> {
    cpSync(filled!.dir.path, dir.path, { recursive: true });
    if (database) {
      await database.drop();
      database = await createTestDatabase(filled!.database);
    }
  }

  /** 40,000 events, a tree head recorded over them, then `after` more; `edit` runs on the database before it closes. */
  async function logWithHead(after: number, edit?: (engine: Engine) => Promise<unknown>): Promise<void> {
    await fromFilledLog();
    const first = await serverEngine();
    await first.audit.checkpoint();
    await fill(first, after);
    await edit?.(first);
    await first.close();
  }

  /** Runs `edit` on the database between two starts, from a command's engine (which stores no edge of its own). */
  async function between(edit: (engine: Engine) => Promise<unknown>): Promise<void> {
    const command = await createEngine({
      dataDir: dir.path,
      ...(database ? { databaseUrl: database.url } : {}),
      logger: pino({ level: 'silent' }),
      watchRules: false,
      tailIntervalMs: 0,
      screeningCacheDir,
    });
    try {
      await edit(command);
    } finally {
      await command.close();
    }
  }

  /** The stored edge as its row holds it. */
  const edgeRow = async (engine: Engine) =>
    JSON.parse((await sql<{ edge: string }>`select edge from audit_edge`.execute(engine.db)).rows[0]!.edge) as {
      frontier: { size: number; hashes: string[] };
      rootHash: string;
    };

  it('reads the events after the recorded edge and its last tile, not the log before it; old events are proved from the stored subtrees', async () => {
    await logWithHead(1000);
    // As after a crash that stopped the server before it stored its own edge at shutdown.
    await between((command) => sql`delete from audit_edge`.execute(command.db));
    const { logger, messages } = warnings();
    const engine = await serverEngine(logger);
    try {
      const opening = engine.audit.treeOpening();
      expect(opening.from).toBe('recorded edge');
      // The edge's last event and last incomplete tile (under 256), and the 1,000 events and the head recorded after it.
      expect(opening.eventsRead).toBeGreaterThanOrEqual(1000);
      expect(opening.eventsRead).toBeLessThan(1000 + 256 + 10);
      // prove() checks each proof against the signed root before handing it out.
      expect((await engine.audit.prove(5)).event.position).toBe(5);
      expect((await engine.audit.prove(30_000)).event.position).toBe(30_000);
      expect(messages).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 240_000);

  it('detects a stored subtree that was changed, rebuilds them from the log while it answers /healthz, and stores them again', async () => {
    // The first stored subtree of 2^14 leaves, changed in the table (which is not hash-chained as the log is).
    await logWithHead(0, (first) =>
      sql`update audit_subtrees set hash = ${'ab'.repeat(32)} where height = 14 and idx = 0`.execute(first.db),
    );
    const { logger, messages } = warnings();
    const engine = await serverEngine(logger);
    const server = serve({ fetch: createApp(engine).fetch, port: 0, hostname: '127.0.0.1' });
    try {
      await once(server, 'listening');
      let proved = false;
      const proving = engine.audit.prove(5).then((proof) => {
        proved = true;
        return proof;
      });
      // The rebuild reads the 40,000 events a page at a time, yielding to the event loop: requests are answered meanwhile.
      const health = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
      expect(health.status).toBe(200);
      expect(proved).toBe(false);
      expect((await proving).event.position).toBe(5);
      expect(messages).toContain('the stored audit subtrees do not match the right edge the tree went on from: rebuilt from the log');
      // The next head stores them whole again, so the start after it needs no rebuild.
      await fill(engine, 10);
      await engine.audit.checkpoint();
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await engine.close();
    }
    const { logger: quiet, messages: none } = warnings();
    const again = await serverEngine(quiet);
    try {
      expect((await again.audit.prove(5)).event.position).toBe(5);
      expect(none).toEqual([]);
    } finally {
      await again.close();
    }
  }, 240_000);

  it('with no tree head ever recorded (AUDIT_CHECKPOINT_INTERVAL=0), goes on from the edge the server stored at shutdown', async () => {
    await fromFilledLog();
    const { logger, messages } = warnings();
    const engine = await serverEngine(logger);
    try {
      const opening = engine.audit.treeOpening();
      expect(opening.from).toBe('stored edge');
      // The edge's last event and its last incomplete tile (under 256), not the 40,000 before.
      expect(opening.eventsRead).toBeLessThan(256 + 10);
      await fill(engine, 10);
      expect((await engine.audit.prove(5)).event.position).toBe(5);
      expect((await engine.audit.prove(40_005)).event.position).toBe(40_005);
      expect(messages).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 240_000);

  it('stores the edge while it runs, not only at shutdown: a crash costs the events after the last one stored', async () => {
    // Every auditEdgeIntervalMs once the tree grew (10 s unless set; a quarter second here, so the test need not wait
    // for the default): waited for, as a crashed server's next start would find it.
    const engine = await serverEngine(undefined, { auditEdgeIntervalMs: 250 });
    try {
      await fill(engine, 10_000);
      await vi.waitFor(
        async () => {
          const rows = (await sql<{ edge: string }>`select edge from audit_edge`.execute(engine.db)).rows;
          expect(rows).toHaveLength(1);
          expect((JSON.parse(rows[0]!.edge) as { frontier: { size: number } }).frontier.size).toBeGreaterThanOrEqual(10_000);
        },
        { timeout: 60_000, interval: 100 },
      );
    } finally {
      await engine.close();
    }
  }, 240_000);

  /** The root of the tree of the log's first `size` events, hashed here from the log. */
  async function rootOfLog(engine: Engine, size: number): Promise<string> {
    const leaves = [];
    for await (const e of engine.store.iterateAll({ after: 0 })) if (leaves.length < size) leaves.push(leafOf(e.position, e.hash));
    return rootOf(leaves).toString('hex');
  }

  it.each([
    // The edge's topmost pending root (2^15 leaves: nothing the log's last event or last tile shows) changed alone.
    ['a pending root', 'the log no longer matches the stored audit tree edge: not used', false],
    // Changed with the root it folds to, as whoever lacks the audit key can: the signature no longer matches.
    ['a pending root and the root', 'the stored audit tree edge is not signed by the current audit key: not used', true],
  ])(
    'does not go on from a stored edge with %s edited: the tree is read from the whole log',
    async (_, warning, refold) => {
      await fromFilledLog();
      await between(async (command) => {
        const edge = await edgeRow(command);
        const level = edge.frontier.hashes.length - 1;
        expect(2 ** level).toBeGreaterThan(4096);
        edge.frontier.hashes[level] = 'ab'.repeat(32);
        if (refold) {
          let root: Buffer | undefined;
          for (const hex of edge.frontier.hashes) if (hex) root = root ? nodeHash(Buffer.from(hex, 'hex'), root) : Buffer.from(hex, 'hex');
          edge.rootHash = root!.toString('hex');
        }
        await sql`update audit_edge set edge = ${JSON.stringify(edge)}`.execute(command.db);
      });
      const { logger, messages } = warnings();
      const engine = await serverEngine(logger);
      try {
        const opening = engine.audit.treeOpening();
        expect(opening.from).toBe('whole log');
        expect(opening.eventsRead).toBeGreaterThanOrEqual(40_000);
        expect(messages).toEqual([warning]);
        const head = await engine.audit.checkpoint();
        expect(head.rootHash).toBe(await rootOfLog(engine, head.treeSize));
      } finally {
        await engine.close();
      }
      // The edge stored at that shutdown replaces the edited one.
      const { logger: quiet, messages: none } = warnings();
      const again = await serverEngine(quiet);
      try {
        expect(again.audit.treeOpening().from).not.toBe('whole log');
        expect(none).toEqual([]);
      } finally {
        await again.close();
      }
    },
    240_000,
  );
});
