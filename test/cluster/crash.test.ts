import { type ChildProcess, spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { openLocation } from '../../src/store/index.js';
import { runCli, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { createTestDatabase, describePostgres } from '../postgres.js';

const KEY = { apiKey: 'ck_crashtest000000000000', apiSecret: 'cs_crashtest000000000000000000000000' };
const INSTANT = '/api/v1/transaction-monitoring/instant';

interface Node {
  id: string;
  port: number;
  dir: string;
  child?: ChildProcess;
}

/**
 * `npm start` as an operator runs it: node with tsx as a loader (so SIGKILL reaches the server itself, not a wrapper),
 * on a port the system picks (read from its 'listening' log line: the machine is shared, a port chosen ahead may be taken).
 */
function start(node: Node, databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: node.dir,
      DATABASE_URL: databaseUrl,
      NODE_ID: node.id,
      LOG_LEVEL: 'info',
      BOOTSTRAP_API_KEY: KEY.apiKey,
      BOOTSTRAP_API_SECRET: KEY.apiSecret,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  node.child = child;
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'compliance engine listening') {
          node.port = entry.port!;
          resolve();
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${node.id} exited (${code}) before listening`)));
  });
}

async function healthy(node: Node): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${node.port}/healthz`);
  expect(await res.json()).toMatchObject({ status: 'ok', backend: 'postgres', node: node.id });
}

async function post(port: number, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${INSTANT}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describePostgres('three nodes on one database, one killed mid-run', () => {
  it('keeps every acknowledged decision exactly once, answers a resubmission with the same id, and replays', async () => {
    const database = await createTestDatabase();
    const dirs = Array.from({ length: 3 }, () => tempDir('ce-node-'));
    const nodes: Node[] = dirs.map((d, i) => ({ id: `node-${i + 1}`, port: 0, dir: d.path }));
    try {
      // The first node registers the bootstrap key; the others find it there.
      await start(nodes[0]!, database.url);
      await Promise.all(nodes.slice(1).map((n) => start(n, database.url)));
      for (const n of nodes) await healthy(n);

      const acknowledged = new Map<string, string>();
      let sent = 0;
      let stop = false;
      const victim = nodes[1]!;
      // 8 clients, round-robin over the three nodes; a request that fails (its node is down) goes again, with the same
      // reference, to the next node, as a switch retries.
      const client = async (c: number) => {
        for (let k = 0; !stop; k++) {
          const reference = `CRASH-${c}-${k}`;
          const body = tx(reference, { anonymizedUserData: { uniqueId: `crash-user-${c}` }, device: { deviceId: `crash-device-${c}` } });
          for (let attempt = 0; ; attempt++) {
            const node = nodes[(c + k + attempt) % nodes.length]!;
            sent++;
            try {
              const res = await post(node.port, body);
              if (res.status === 200) {
                acknowledged.set(reference, res.body.data.transactionId);
                break;
              }
            } catch {
              // Connection refused or reset: the node is down.
            }
            if (attempt > 30) throw new Error(`${reference} was never acknowledged`);
          }
        }
      };
      const clients = Array.from({ length: 8 }, (_, c) => client(c));
      const until = async (count: number) => {
        while (acknowledged.size < count) await new Promise((r) => setTimeout(r, 20));
      };
      await until(150);
      victim.child!.kill('SIGKILL');
      await until(300);
      await start(victim, database.url);
      await healthy(victim);
      await until(450);
      stop = true;
      await Promise.all(clients);

      // Every acknowledged decision is in the log exactly once, under the id its client was given.
      const { db } = openLocation(database.url, { max: 1 });
      try {
        const rows = await db.selectFrom('events').select(['stream_id', 'data']).where('type', '=', 'TransactionDecided').execute();
        const byReference = new Map<string, string[]>();
        for (const row of rows) {
          // As stored: a compact decision (schema version 3) keeps its reference in its request alone.
          const reference = (JSON.parse(row.data) as { request: { transactionData: { reference: string } } }).request.transactionData
            .reference;
          byReference.set(reference, [...(byReference.get(reference) ?? []), row.stream_id]);
        }
        for (const [reference, transactionId] of acknowledged) {
          const streams = byReference.get(reference);
          expect(streams, reference).toHaveLength(1);
          expect(streams![0]).toContain(transactionId);
        }
      } finally {
        await db.destroy();
      }
      // A resubmission, to any node, answers with the same id.
      const sample = [...acknowledged].filter((_, i) => i % 25 === 0);
      for (const [i, [reference, transactionId]] of sample.entries()) {
        const c = Number(reference.split('-')[1]);
        const body = tx(reference, { anonymizedUserData: { uniqueId: `crash-user-${c}` }, device: { deviceId: `crash-device-${c}` } });
        const again = await post(nodes[i % nodes.length]!.port, body);
        expect(again.body.data.transactionId).toBe(transactionId);
      }
      console.log(`crash test: ${acknowledged.size} decisions acknowledged of ${sent} requests sent, ${victim.id} killed and restarted`);

      for (const n of nodes) n.child?.kill('SIGTERM');
      await Promise.all(nodes.map((n) => new Promise((r) => (n.child!.exitCode !== null ? r(null) : n.child!.once('exit', r)))));
      const verified = await runCli({ DATA_DIR: nodes[0]!.dir, DATABASE_URL: database.url }, 'replay', '--verify');
      expect(verified.stdout).toMatch(/hash chain: intact/);
      expect(verified.stdout).toContain('OK: read models equal the replayed log');
      expect(verified.code).toBe(0);
    } finally {
      for (const n of nodes) if (n.child && n.child.exitCode === null) n.child.kill('SIGKILL');
      await database.drop();
      for (const d of dirs) d.remove();
    }
  }, 900_000);
});
