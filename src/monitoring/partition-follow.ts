// A node that leases partitions holds and decides only those: it skips other nodes' decisions of the rest, builds
// a partition's velocity windows and history from the log when it takes the partition over, and drops them when it
// gives it up. Lists, devices and every other business-wide event are applied by every node alike.
import type { Clock } from '../clock.js';
import { PartitionElsewhereError } from '../errors.js';
import type { Logger } from '../logger.js';
import { decisionSubject, partitionOf, type SubjectFields } from '../partitions/index.js';
import { HistoryStore, VelocityStore } from '../rules/index.js';
import { type EventStore, isHeaderOnly, type StoredEvent } from '../store/index.js';
import type { TransactionDecidedData } from './events.js';
import { maxWindowMs } from './ruleset-rebuild.js';
import type { MonitoringState } from './state.js';

/** What this node leases (src/partitions/leases.ts), as the follower asks it. */
export interface PartitionHolding {
  count(businessId: string): number | undefined;
  businesses(): Iterable<string>;
  holds(businessId: string, partition: number): boolean;
  mine(businessId: string): Set<number>;
  onRenewed(listener: () => void): () => void;
  /** The request's partition where the holder already computed it (a deciding thread's router), sparing a hash. */
  placed?(request: SubjectFields): number | undefined;
}

/** A refused decision's client retries after this: a moving partition has its new owner within a renewal or two. */
const RETRY_AFTER_SECONDS = 1;
/** Events read per page while a business's partitions are built. */
const BUILD_PAGE = 1000;
/** A build catches up with decisions in passes while they go on, until this few events are left for its pause. */
const PAUSED_CATCH_UP = 1000;
/** The follower's name among the store's readers of whole rows (EventStore.wholeRows). */
const READER = 'partition-follow';

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number> | undefined): boolean =>
  b !== undefined && a.size === b.size && [...a].every((p) => b.has(p));

/** A decision's partition: from its metadata, or, stored before decisions carried one, its data. */
const partitionOfDecided = (decided: StoredEvent, count: number): number =>
  decided.metadata.partition ?? partitionOf(decisionSubject((decided.data as TransactionDecidedData).request as SubjectFields), count);

export class PartitionFollower {
  readonly #state: MonitoringState;
  readonly #store: EventStore;
  readonly #holding: PartitionHolding;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** By business: the partitions whose decisions the state holds. A business not here has all of them applied. */
  readonly #built = new Map<string, ReadonlySet<number>>();
  /** The build under way, or the last one. */
  #building: Promise<void> = Promise.resolve();
  #running = false;
  readonly #unfollow: () => void;

  constructor(state: MonitoringState, store: EventStore, holding: PartitionHolding, clock: Clock, logger: Logger) {
    this.#state = state;
    this.#store = store;
    this.#holding = holding;
    this.#clock = clock;
    this.#logger = logger;
    state.follow((decided) => this.#follows(decided));
    // Until its first build, a business's decisions made elsewhere are not needed whole: the build reads the log.
    store.wholeRows.need(READER, new Set());
    this.#unfollow = holding.onRenewed(() => this.#rebalance());
    this.#rebalance();
  }

  /**
   * The partition a decision of the business is made in: at once when this node holds the partition's state, after
   * its build when the node has just taken it over; undefined for a business without a partition count (every node
   * decides it). A partition another node holds, or none does while it moves, is refused (PartitionElsewhereError).
   */
  partition(businessId: string, request: SubjectFields): number | undefined | Promise<number> {
    const count = this.#holding.count(businessId);
    if (count === undefined) return undefined;
    const partition = this.#holding.placed?.(request) ?? partitionOf(decisionSubject(request), count);
    if (this.#holding.holds(businessId, partition) && this.#built.get(businessId)?.has(partition)) return partition;
    return this.#whenBuilt(businessId, partition);
  }

  /** Partitions of the business whose state this node holds (tests, /healthz). */
  built(businessId: string): ReadonlySet<number> | undefined {
    return this.#built.get(businessId);
  }

  close(): void {
    this.#unfollow();
    this.#store.wholeRows.need(READER, undefined);
  }

  async #whenBuilt(businessId: string, partition: number): Promise<number> {
    // Three builds at most: one under way for an older share, the one that includes this partition, and a retry.
    for (let tries = 0; tries < 3 && this.#holding.holds(businessId, partition); tries++) {
      if (this.#built.get(businessId)?.has(partition)) return partition;
      this.#rebalance();
      await this.#building;
    }
    if (this.#holding.holds(businessId, partition) && this.#built.get(businessId)?.has(partition)) return partition;
    throw new PartitionElsewhereError(
      `partition ${partition} of business ${businessId} is not this node's: its owner decides it (retry, or route by X-Routing-Key)`,
      RETRY_AFTER_SECONDS,
    );
  }

  /**
   * A business not built yet has every decision applied but those read as their header (of no partition this node
   * reads whole): its first build reads them from the log, and replaces what was applied.
   */
  #follows(decided: StoredEvent): boolean {
    const businessId = decided.metadata.businessId;
    const built = this.#built.get(businessId);
    if (built === undefined) return !isHeaderOnly(decided);
    return built.has(partitionOfDecided(decided, this.#holding.count(businessId)!));
  }

  /**
   * Tells the store which partitions' rows this node needs whole from other nodes: those built, and `building`.
   * They grow before a build reads the log and shrink after its swap, so a row of a partition whose state is held
   * is never read as its header alone.
   */
  #needWhole(building?: ReadonlyMap<string, ReadonlySet<number>>): void {
    const partitions = new Set<number>();
    for (const built of this.#built.values()) for (const p of built) partitions.add(p);
    for (const target of building?.values() ?? []) for (const p of target) partitions.add(p);
    this.#store.wholeRows.need(READER, partitions);
  }

  /**
   * Builds every business whose state lacks what this node holds, or holds what it gave up, in one read of the log
   * (a renewal after start changes every business at once). One build at a time; a renewal during one is looked at
   * when it ends.
   */
  #rebalance(): void {
    if (this.#running) return;
    const changed = new Map<string, ReadonlySet<number>>();
    for (const businessId of this.#holding.businesses()) {
      const mine = this.#holding.mine(businessId);
      if (!sameSet(mine, this.#built.get(businessId))) changed.set(businessId, mine);
    }
    if (changed.size === 0) return;
    this.#running = true;
    this.#needWhole(changed);
    this.#building = this.#rebuild(changed).then(
      () => {
        this.#running = false;
        // The shares may have moved again during the build, or a ruleset swap made it start over.
        this.#rebalance();
      },
      (err) => {
        this.#running = false;
        this.#logger.error({ err, businesses: [...changed.keys()] }, 'partition state: build failed; retrying at the next lease renewal');
      },
    );
  }

  /**
   * The businesses' velocity windows and history rebuilt from the log for the partitions this node holds, while
   * decisions go on; then, with decisions paused, the events committed meanwhile, and the new stores replace the
   * old in the same tick as the last read, so no decision sees them half-filled. Lists stay: they are business-wide.
   */
  async #rebuild(targets: ReadonlyMap<string, ReadonlySet<number>>): Promise<void> {
    const ruleset = this.#state.ruleset;
    const now = this.#clock.now().getTime();
    const windowsFrom = now - maxWindowMs(ruleset);
    const historyFrom = now - this.#state.historyHorizonMs;
    const stores = new Map(
      [...targets].map(([businessId, target]) => [
        businessId,
        {
          target,
          count: this.#holding.count(businessId)!,
          velocity: new VelocityStore(ruleset),
          history: new HistoryStore(ruleset.schema, ruleset.history),
        },
      ]),
    );
    const replay = async (after: number, upTo: number) => {
      for await (const e of this.#store.iterateAll({ after, types: ['TransactionDecided'], pageSize: BUILD_PAGE })) {
        if (e.position > upTo) break;
        const built = stores.get(e.metadata.businessId);
        if (!built?.target.has(partitionOfDecided(e, built.count))) continue;
        const { request, decidedAt } = e.data as TransactionDecidedData;
        const at = Date.parse(decidedAt);
        if (at < historyFrom) continue;
        if (at >= windowsFrom) built.velocity.record(request, at);
        built.history.record(request, at);
      }
    };
    let upTo = this.#state.appliedPosition;
    await replay(0, upTo);
    while (this.#state.appliedPosition - upTo > PAUSED_CATCH_UP) {
      const after = upTo;
      upTo = this.#state.appliedPosition;
      await replay(after, upTo);
    }
    return this.#state.paused(async () => {
      // A catch-up sent before the partitions needed grew may have read some of theirs as headers: once this one
      // is in, every such row is applied (as skipped) and below the head the replay reads whole from the log.
      await this.#store.catchUp();
      for (let head = this.#state.appliedPosition; head > upTo; head = this.#state.appliedPosition) {
        await replay(upTo, head);
        upTo = head;
      }
      // A swap adopted another ruleset meanwhile: these stores are of the old one, and the build starts over.
      if (this.#state.ruleset !== ruleset) return;
      for (const [businessId, built] of stores) {
        const business = this.#state.business(businessId);
        business.velocity = built.velocity;
        business.history = built.history;
        this.#built.set(businessId, built.target);
      }
      this.#needWhole();
      this.#logger.info({ businesses: stores.size }, 'partition state built');
    });
  }
}
