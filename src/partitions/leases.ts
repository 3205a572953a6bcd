import { type Kysely, sql } from 'kysely';
import type { Logger } from '../logger.js';
import type { EventStore } from '../store/index.js';
import { PartitionCounts } from './counts.js';
import { partitionOf, type Subject } from './key.js';
import { shareMove } from './share.js';

/** How often a node renews its leases and rebalances (LEASE_RENEW_MS). */
export const DEFAULT_LEASE_RENEW_MS = 1000;
/** How long a lease outlives its last renewal (LEASE_TTL_MS): a dead node's partitions are taken over after this. */
export const DEFAULT_LEASE_TTL_MS = 5000;

export interface LeaseOptions {
  nodeId: string;
  /** The URL other nodes forward this node's partitions' decisions to (NODE_URL). */
  url: string;
  renewMs?: number;
  ttlMs?: number;
}

/** A live node holding a partition. */
export interface PartitionOwner {
  readonly nodeId: string;
  readonly url: string;
}

interface Lease extends PartitionOwner {
  /** performance.now() at which the lease lapses, from the database's remaining time (so no clocks need agree). */
  readonly until: number;
}

interface LeaseRow {
  business_id: string;
  partition: number;
  node_id: string;
  node_url: string;
  remaining_ms: number;
}

/**
 * This node's share of each business's partitions, leased in `partition_leases` (lease-table.ts), and what it last
 * read of the other nodes' shares, which is what routing asks. Every renewal: keep this node's membership live,
 * renew its leases, read the live nodes and leases, give up what is above its fair share (share.ts) and take free
 * or lapsed partitions up to it. The businesses are those whose count the log records (PartitionsFixed).
 * The monitoring state follows what this node holds (src/monitoring/partition-follow.ts): it holds and decides
 * those partitions only, and builds a partition's state from the log when it takes one over.
 */
export class PartitionLeases {
  readonly #db: Kysely<any>;
  readonly #logger: Logger;
  readonly #nodeId: string;
  readonly #url: string;
  readonly #renewMs: number;
  readonly #ttlSeconds: number;
  /** The businesses whose count the log records (PartitionsFixed), with it. */
  readonly #counts: PartitionCounts;
  #leases = new Map<string, Map<number, Lease>>();
  #timer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #renewed = new Set<() => void>();

  private constructor(db: Kysely<any>, counts: PartitionCounts, logger: Logger, options: LeaseOptions) {
    this.#db = db;
    this.#counts = counts;
    this.#logger = logger;
    this.#nodeId = options.nodeId;
    this.#url = options.url;
    this.#renewMs = options.renewMs ?? DEFAULT_LEASE_RENEW_MS;
    this.#ttlSeconds = (options.ttlMs ?? DEFAULT_LEASE_TTL_MS) / 1000;
  }

  /** Reads the businesses' counts, takes a first share, and renews every `renewMs` until closed. */
  static async start(db: Kysely<any>, store: EventStore, logger: Logger, options: LeaseOptions): Promise<PartitionLeases> {
    const leases = new PartitionLeases(db, await PartitionCounts.load(store), logger, options);
    // Node ids change with every start (host name and pid by default): memberships long lapsed are of nodes gone.
    await sql`delete from partition_nodes where expires_at < clock_timestamp() - interval '1 day'`.execute(db);
    await leases.#renew();
    leases.#schedule();
    return leases;
  }

  /** The live node other than this one that holds the subject's partition, if any: where its decision belongs. */
  ownerElsewhere(businessId: string, subject: Subject): PartitionOwner | undefined {
    const count = this.#counts.recorded(businessId);
    if (count === undefined) return undefined;
    const lease = this.#leases.get(businessId)?.get(partitionOf(subject, count));
    if (!lease || lease.nodeId === this.#nodeId || lease.until <= performance.now()) return undefined;
    return lease;
  }

  /** The business's partition count, once the log records one. */
  count(businessId: string): number | undefined {
    return this.#counts.recorded(businessId);
  }

  /** The businesses whose partition count the log records. */
  businesses(): Iterable<string> {
    return [...this.#counts.entries()].map(([businessId]) => businessId);
  }

  /** Whether this node holds a live lease of the business's partition. */
  holds(businessId: string, partition: number): boolean {
    const lease = this.#leases.get(businessId)?.get(partition);
    return lease !== undefined && lease.nodeId === this.#nodeId && lease.until > performance.now();
  }

  /** The business's partitions this node holds a live lease of. */
  mine(businessId: string): Set<number> {
    const mine = new Set<number>();
    for (const p of this.#leases.get(businessId)?.keys() ?? []) if (this.holds(businessId, p)) mine.add(p);
    return mine;
  }

  /** Every live lease as last read, by business, in partition order: where a load balancer sends each partition. */
  owners(): { businessId: string; partitions: number; owners: (PartitionOwner & { partition: number })[] }[] {
    const now = performance.now();
    return [...this.#counts.entries()].map(([businessId, partitions]) => ({
      businessId,
      partitions,
      owners: [...(this.#leases.get(businessId) ?? [])]
        .filter(([, lease]) => lease.until > now)
        .sort(([a], [b]) => a - b)
        .map(([partition, { nodeId, url }]) => ({ partition, nodeId, url })),
    }));
  }

  /** Calls `listener` after each renewal, when what this node holds may have changed; returns the unsubscribe. */
  onRenewed(listener: () => void): () => void {
    this.#renewed.add(listener);
    return () => this.#renewed.delete(listener);
  }

  /** Partitions this node holds a live lease of, over all businesses (/metrics). */
  get owned(): number {
    const now = performance.now();
    let owned = 0;
    for (const byPartition of this.#leases.values())
      for (const lease of byPartition.values()) if (lease.nodeId === this.#nodeId && lease.until > now) owned++;
    return owned;
  }

  /** Stops renewing and releases this node's leases and membership, so the others take its share at their next renewal. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#counts.close();
    this.#renewed.clear();
    await this.#renewing;
    try {
      await sql`delete from partition_leases where node_id = ${this.#nodeId}`.execute(this.#db);
      await sql`delete from partition_nodes where node_id = ${this.#nodeId}`.execute(this.#db);
    } catch (err) {
      this.#logger.warn({ err }, 'partition leases: could not release them; they lapse by themselves');
    }
    this.#leases = new Map();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#renewing = this.#renew()
        .catch((err) => this.#logger.warn({ err }, 'partition leases: renewal failed; retrying at the next'))
        .finally(() => {
          if (!this.#closed) this.#schedule();
        });
    }, this.#renewMs);
    this.#timer.unref();
  }

  async #renew(): Promise<void> {
    const db = this.#db;
    const me = this.#nodeId;
    const until = sql`clock_timestamp() + make_interval(secs => ${this.#ttlSeconds})`;
    await sql`insert into partition_nodes (node_id, node_url, expires_at) values (${me}, ${this.#url}, ${until})
      on conflict (node_id) do update set node_url = excluded.node_url, expires_at = excluded.expires_at`.execute(db);
    await sql`update partition_leases set expires_at = ${until}, node_url = ${this.#url}
      where node_id = ${me} and expires_at > clock_timestamp()`.execute(db);
    const readAt = performance.now();
    const nodes = (
      await sql<{ node_id: string }>`select node_id from partition_nodes where expires_at > clock_timestamp() order by node_id`.execute(db)
    ).rows.map((r) => r.node_id);
    const { rows } = await sql<LeaseRow>`select business_id, partition, node_id, node_url,
      extract(epoch from expires_at - clock_timestamp())::float8 * 1000 as remaining_ms
      from partition_leases where expires_at > clock_timestamp()`.execute(db);
    const leases = new Map<string, Map<number, Lease>>();
    for (const r of rows) {
      const byPartition = leases.get(r.business_id) ?? new Map<number, Lease>();
      byPartition.set(r.partition, { nodeId: r.node_id, url: r.node_url, until: readAt + r.remaining_ms });
      leases.set(r.business_id, byPartition);
    }

    const release: { b: string[]; p: number[] } = { b: [], p: [] };
    const claim: { b: string[]; p: number[] } = { b: [], p: [] };
    const index = Math.max(0, nodes.indexOf(me));
    for (const [businessId, count] of this.#counts.entries()) {
      const held = leases.get(businessId) ?? new Map<number, Lease>();
      const mine = [...held].filter(([p, l]) => l.nodeId === me && p < count).map(([p]) => p);
      const move = shareMove(count, nodes.length, index, mine, new Set(held.keys()));
      for (const p of move.release) {
        release.b.push(businessId);
        release.p.push(p);
        held.delete(p);
      }
      for (const p of move.claim) {
        claim.b.push(businessId);
        claim.p.push(p);
      }
    }
    if (release.p.length > 0)
      await sql`delete from partition_leases l using unnest(${release.b}::text[], ${release.p}::int[]) as t(b, p)
        where l.business_id = t.b and l.partition = t.p and l.node_id = ${me}`.execute(db);
    if (claim.p.length > 0) {
      const claimedAt = performance.now();
      // Only a free or lapsed row is taken over: of two nodes claiming one partition at once, one gets it.
      const won = await sql<{ business_id: string; partition: number }>`insert into partition_leases
          (business_id, partition, node_id, node_url, expires_at)
        select t.b, t.p, ${me}, ${this.#url}, ${until} from unnest(${claim.b}::text[], ${claim.p}::int[]) as t(b, p)
        on conflict (business_id, partition) do update
          set node_id = excluded.node_id, node_url = excluded.node_url, expires_at = excluded.expires_at
          where partition_leases.expires_at <= clock_timestamp()
        returning business_id, partition`.execute(db);
      for (const r of won.rows) {
        const byPartition = leases.get(r.business_id) ?? new Map<number, Lease>();
        byPartition.set(r.partition, { nodeId: me, url: this.#url, until: claimedAt + this.#ttlSeconds * 1000 });
        leases.set(r.business_id, byPartition);
      }
    }
    if (this.#closed) return;
    this.#leases = leases;
    for (const listener of this.#renewed) listener();
  }
}
