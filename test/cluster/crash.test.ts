import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { decodeDecided } from '../../src/monitoring/compact-decision.js';
import { openLocation } from '../../src/store/index.js';
import { runCli, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { createTestDatabase, describePostgres } from '../postgres.js';
import { metric, until as holds } from './serving.js';

const KEY = { apiKey: 'ck_crashtest000000000000', apiSecret: 'cs_crashtest000000000000000000000000' };
const INSTANT = '/api/v1/transaction-monitoring/instant';

interface Node {
  id: string;
  port: number;
  dir: string;
  child?: ChildProcess;
}

/** A port free a moment ago: the node must know its own before it listens, to advertise it (NODE_URL). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `npm start` as an operator runs it: node with tsx as a loader (so SIGKILL reaches the server itself, not a wrapper),
 * advertising its address and leasing partitions (renewed every 200 ms, lapsing after 1 s). The machine is shared:
 * a port taken between the probe and the start makes the start fail, and it is tried again on another.
 */
async function start(node: Node, databaseUrl: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    node.port = await freePort();
    try {
      return await startOn(node, databaseUrl);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

function startOn(node: Node, databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(node.port),
      NODE_URL: `http://127.0.0.1:${node.port}`,
      LEASE_RENEW_MS: '200',
      LEASE_TTL_MS: '1000',
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
        if (entry.msg === 'compliance engine listening') resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`${node.id} exited (${code}) before listening`)));
  });
}

async function healthy(node: Node): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${node.port}/healthz`);
  expect(await res.json()).toMatchObject({ status: 'ok', backend: 'postgres', node: node.id });
}

async function post(port: number, body: unknown): Promise<{ status: number; body: any; decidedBy: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${INSTANT}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), decidedBy: res.headers.get('x-decided-by') };
}

/** `CRASH-<client>-<k>`: each client's transactions spread over eight users, so over most partitions' owners. */
function transaction(reference: string): Record<string, unknown> {
  const [, c, k] = reference.split('-').map(Number) as [number, number, number];
  return tx(reference, { anonymizedUserData: { uniqueId: `crash-user-${c}-${k % 8}` }, device: { deviceId: `crash-device-${c}` } });
}

const url = (node: Node) => `http://127.0.0.1:${node.port}`;
const owned = (node: Node) => metric(url(node), 'partitions_owned');

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
      // The bootstrap key set the business up with 64 partitions: 22, 22 and 20 once every node has its share.
      const shares = async (live: Node[]) => (await Promise.all(live.map(owned))).reduce((a, b) => a + b, 0) === 64;
      await holds('three shares', async () => (await shares(nodes)) && (await Promise.all(nodes.map(owned))).every((n) => n >= 20));

      const acknowledged = new Map<string, string>();
      let sent = 0;
      let forwarded = 0;
      let refused = 0;
      let stop = false;
      const victim = nodes[1]!;
      // 8 clients, round-robin over the three nodes; a request that fails (its node is down) goes again, with the same
      // reference, to the next node, as a switch retries.
      const client = async (c: number) => {
        for (let k = 0; !stop; k++) {
          const reference = `CRASH-${c}-${k}`;
          const body = transaction(reference);
          for (let attempt = 0, moving = 0; ; attempt++) {
            const node = nodes[(c + k + attempt) % nodes.length]!;
            sent++;
            try {
              const res = await post(node.port, body);
              if (res.status === 200) {
                if (res.decidedBy !== node.id) forwarded++;
                acknowledged.set(reference, res.body.data.transactionId);
                break;
              }
              // The partition has no live owner (its owner was killed, its lease not yet lapsed): retry after a while,
              // as Retry-After says (sooner here), rather than count it among the attempts at a dead node.
              if (res.status === 503) {
                refused++;
                if (++moving > 400) throw new Error(`${reference} refused as moving ${moving} times`);
                attempt--;
                await new Promise((r) => setTimeout(r, 25));
              }
            } catch (error) {
              if ((error as Error).message.includes('refused as moving')) throw error;
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
      const { db } = openLocation(database.url, { max: 1 });
      try {
        await until(150);
        victim.child!.kill('SIGKILL');
        // Killed, it released nothing: its partitions move to the others once their leases lapse, under load.
        const held = await sql<{ n: number }>`select count(*)::int as n from partition_leases where node_id = ${victim.id}`.execute(db);
        expect(held.rows[0]!.n).toBeGreaterThan(0);
        const survivors = nodes.filter((n) => n !== victim);
        await holds('the survivors hold every partition', () => shares(survivors));
        await until(300);
        await start(victim, database.url);
        await healthy(victim);
        // Restarted, it gets a share again as the others give theirs up.
        await holds('the victim holds a share again', async () => (await owned(victim)) > 0);
        await until(450);
        stop = true;
        await Promise.all(clients);
        expect(forwarded).toBeGreaterThan(0);

        // Every acknowledged decision is in the log exactly once, under the id its client was given.
        const rows = await db.selectFrom('events').select(['stream_id', 'data']).where('type', '=', 'TransactionDecided').execute();
        const byReference = new Map<string, string[]>();
        for (const row of rows) {
          // As stored: a compact decision (schema version 3), decoded as every reader of the log decodes it.
          const { reference } = decodeDecided(JSON.parse(row.data));
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
        const again = await post(nodes[i % nodes.length]!.port, transaction(reference));
        expect(again.body.data.transactionId).toBe(transactionId);
      }
      console.log(
        `crash test: ${acknowledged.size} decisions acknowledged of ${sent} requests sent (${forwarded} decided by the partition's owner after a hop, ${refused} refused while their partition had no live owner), ${victim.id} killed and restarted`,
      );

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
