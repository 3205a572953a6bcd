import { createHash } from 'node:crypto';
import type pg from 'pg';
import { postgresClient } from './postgres.js';

/**
 * How long a connection may be silent before the server probes it, and its probes: a machine that died with claims
 * held (no FIN ever reaches the server) loses them after about 10 + 3 × 5 s, not the two hours of the OS default.
 */
const KEEPALIVES = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

/**
 * Background work that must run on one node at a time across the cluster: a screening check, a CDD request, a
 * schedule. On PostgreSQL a claim is a session advisory lock taken on a connection of this node's own, outside the
 * pool. The server frees it when the node releases it, closes, or dies (its connection drops), so the next node to
 * look takes the work over at once, with no lease to wait out. Claims only keep nodes from doing the same work side
 * by side: what makes an effect happen once is still the worker's append at the stream version it read, which also
 * covers a node that lost its connection (and so its claims) in the middle of a job.
 * On SQLite the process is the only one working its file, and the set of keys it holds is the whole claim.
 */
export class Claims {
  readonly #held = new Set<string>();
  readonly #url: string | undefined;
  readonly #name: string;
  #client: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(options: { url?: string; nodeId?: string } = {}) {
    this.#url = options.url;
    this.#name = `compliance-engine ${options.nodeId ?? 'node'} claims`;
  }

  /** Runs `work` unless `key` is held, here or on another node; undefined when it is. */
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.#held.has(key) || this.#closed) return undefined;
    this.#held.add(key);
    try {
      const lock = this.#url ? lockKey(key) : undefined;
      if (lock && !(await this.#tryLock(lock))) return undefined;
      try {
        return { value: await work() };
      } finally {
        if (lock) await this.#unlock(lock);
      }
    } finally {
      this.#held.delete(key);
    }
  }

  /** Ends the claims connection: the server frees every claim still held. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.end()).catch(() => undefined);
  }

  async #tryLock(lock: string): Promise<boolean> {
    const client = await this.#connection();
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [lock]);
    return rows[0]!.locked;
  }

  async #unlock(lock: string): Promise<void> {
    // A lost connection already freed the lock on the server.
    const client = await this.#client?.catch(() => undefined);
    await client?.query('select pg_advisory_unlock($1::bigint)', [lock]).catch(() => undefined);
  }

  #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = postgresClient(this.#url!, this.#name, KEEPALIVES);
    const lost = () => {
      if (this.#client === connecting) this.#client = undefined;
    };
    client.on('error', lost);
    client.on('end', lost);
    const connecting = client.connect().then(
      () => client,
      (error: unknown) => {
        lost();
        throw error;
      },
    );
    this.#client = connecting;
    return connecting;
  }
}

/** A claim's key as an advisory lock's 64-bit key: the first 8 bytes of its SHA-256 (a clash is a 2^-64 chance). */
function lockKey(key: string): string {
  return createHash('sha256').update(`claim:${key}`).digest().readBigInt64BE(0).toString();
}
