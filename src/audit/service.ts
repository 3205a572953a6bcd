import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { ExpectedVersionConflictError, type EventStore, type Secrets, type StreamWrite } from '../store/index.js';
import { AUDIT_METADATA, TREE_HEADS_STREAM, type AuditEvent, type SigningKeyActivatedData } from './events.js';
import { proveInclusion, type InclusionProof } from './inclusion.js';
import { checkOrigin } from './checkpoint-text.js';
import type { LogTree, TreeOpening } from './log-tree.js';
import { EDGE_INTERVAL_MS, type EdgeKeeper } from './edge-keeper.js';
import { openTree, type RecordedHead } from './open-tree.js';
import { Upkeep } from './upkeep.js';
import { compactRangeSizes, consistencyProof } from './merkle.js';
import { NO_WITNESSES, Witnessing, type WitnessPolicy } from './witnessing.js';
import type { KeyCustody, KeySources } from './key-custody.js';
import { signTreeHead, type Checkpoint, type SignedTreeHead } from './tree-head.js';
import { verifyCheckpoints, type AuditReport } from './verify.js';

/** Where published tree heads go besides the log: the webhook endpoints, and the metrics. */
export interface TreeHeadOutlets {
  /** The writes that deliver `payload` as a webhook of `eventType` to every business with an endpoint. */
  webhookWrites(eventType: string, subject: string, payload: unknown): Promise<StreamWrite[]>;
  treeHeadSigned(head: SignedTreeHead, witnessing: { cosignatures: number; quorum: number }): void;
}

/** The head as handed out: the recorded head without the tree's right edge. */
const view = ({ frontier: _, ...checkpoint }: RecordedHead): Checkpoint => checkpoint;
/** The head an inclusion proof carries: without the compact range either. */
const stripped = ({ compactRange: _, ...head }: Checkpoint): SignedTreeHead => head;

export interface AuditOptions extends KeySources {
  /** The log's origin line (AUDIT_LOG_ORIGIN): the name checkpoints carry and witnesses know the log by. */
  origin: string;
  /** Seconds between published tree heads (0: none). */
  checkpointIntervalSeconds?: number;
  /** How often queued events are hashed into the tree, in ms (0: only on demand, and the start does not catch up). */
  foldIntervalMs?: number;
  /** How often the tree's right edge is stored when it grew, in ms (default EDGE_INTERVAL_MS), while the tree is folded on a timer. */
  edgeIntervalMs?: number;
  /** The witnesses asked to cosign each checkpoint, and how many must (AUDIT_WITNESSES, AUDIT_WITNESS_QUORUM). */
  witnesses?: WitnessPolicy;
}

/** The latest checkpoint's witnessing, for /healthz and /metrics. */
export interface WitnessStatus {
  treeSize: number;
  cosignatures: number;
  quorum: number;
  /** A checkpoint with fewer cosignatures than the quorum: the history is then vouched for by the operator alone. */
  belowQuorum: boolean;
  refusals: { witness: string; reason: string }[];
}

const FOLD_INTERVAL_MS = 1000;

/**
 * The verifiable log (RFC 9162 in spirit): a Merkle tree over every event, signed tree heads, inclusion proofs for one
 * event and consistency proofs that the log extends what an auditor was once shown. Every head handed out is first
 * cosigned by the witnesses (if any) and recorded in the log with the tree's right edge, from which a restart goes on;
 * between heads (and without any) a server stores that edge on its own (EdgeKeeper).
 */
export class AuditService {
  readonly #store: EventStore;
  /** The same log read without upcasters: proofs show events exactly as written. */
  readonly #stored: EventStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #outlets: TreeHeadOutlets;
  readonly #keys: KeyCustody;
  readonly #options: AuditOptions;
  readonly #log: LogTree;
  readonly #unfollow: () => void;
  readonly #witnessing: Witnessing;
  readonly #opening: TreeOpening;
  readonly #upkeep: Upkeep;
  readonly #edges: EdgeKeeper;
  /** The last head recorded (by this process, or the last in the log at start). */
  #latest: RecordedHead | undefined;
  /** Tree size after the last recorded head's own events: a log that has not grown beyond them needs no new head. */
  #recordedThrough = -1;
  #witnessStatus: WitnessStatus | undefined;
  /** Heads are signed, cosigned and recorded one at a time. */
  #certifying: Promise<unknown> = Promise.resolve();

  private constructor(
    input: { store: EventStore; stored: EventStore; clock: Clock; logger: Logger; outlets: TreeHeadOutlets; secrets: Secrets },
    options: AuditOptions,
    opened: { log: LogTree; unfollow: () => void; opening: TreeOpening; keys: KeyCustody; edges: EdgeKeeper },
  ) {
    this.#store = input.store;
    this.#stored = input.stored;
    this.#clock = input.clock;
    this.#logger = input.logger;
    this.#outlets = input.outlets;
    this.#keys = opened.keys;
    this.#edges = opened.edges;
    this.#upkeep = new Upkeep(input.store, input.logger);
    this.#options = options;
    this.#log = opened.log;
    this.#unfollow = opened.unfollow;
    this.#opening = opened.opening;
    this.#witnessing = new Witnessing(options.witnesses ?? NO_WITNESSES, input.logger);
  }

  /** Opens the tree (openTree: from the longest right edge the log still matches) and starts the timers. */
  static async start(
    input: {
      store: EventStore;
      stored: EventStore;
      db: Kysely<any>;
      clock: Clock;
      logger: Logger;
      outlets: TreeHeadOutlets;
      secrets: Secrets;
    },
    options: AuditOptions,
  ): Promise<AuditService> {
    checkOrigin(options.origin);
    const foldMs = options.foldIntervalMs ?? FOLD_INTERVAL_MS;
    const opened = await openTree(input, { ...options, catchUp: foldMs > 0 });
    const service = new AuditService(input, options, opened);
    const recorded = opened.head;
    // A last head the log no longer matches is not handed out again: a new one is signed for what the log holds now.
    if (recorded?.note && recorded.origin === options.origin) {
      service.#latest = recorded;
      service.#witnessing.seed(recorded.note, recorded.treeSize);
    }
    if (foldMs > 0) {
      service.#upkeep.every(foldMs, () => service.#log.sync());
      service.#upkeep.every(options.edgeIntervalMs ?? EDGE_INTERVAL_MS, () => service.#edges.store(service.#log, { sync: true }));
    }
    const interval = options.checkpointIntervalSeconds ?? 0;
    if (interval > 0) service.#upkeep.publishEvery(interval * 1000, () => service.publish());
    return service;
  }

  /** How the tree was opened at start: from the edge recorded with the last head, or from the whole log. */
  treeOpening(): TreeOpening {
    return this.#opening;
  }

  /** The public key tree heads are signed with now, its id, and its verifier key for the log's origin. */
  async publicKey(): Promise<{ keyId: string; publicKey: string; origin: string; vkey: string }> {
    const key = await this.#keys.key();
    const origin = this.#options.origin;
    return { keyId: key.keyId, publicKey: key.publicKey, origin, vkey: key.noteSigner(origin).verifier.vkey };
  }

  /** Where the signing key comes from, and what follows for an insider: for /healthz and `audit public-key`. */
  keyCustody(): ReturnType<KeyCustody['custody']> {
    return this.#keys.custody();
  }

  /** The latest checkpoint's cosignatures against the quorum; undefined before the first checkpoint. */
  witnessStatus(): WitnessStatus | undefined {
    if (this.#witnessStatus) return this.#witnessStatus;
    if (!this.#latest) return undefined;
    const cosignatures = this.#witnessing.count(this.#latest.note);
    const quorum = this.#witnessing.quorum;
    return { treeSize: this.#latest.treeSize, cosignatures, quorum, belowQuorum: cosignatures < quorum, refusals: [] };
  }

  /** The latest checkpoint, cosigned, over the whole log as it is now (signed and recorded anew if the log grew). */
  async treeHead(): Promise<SignedTreeHead> {
    return this.checkpoint();
  }

  /** A signed, cosigned tree head with its compact range: what `audit checkpoint` prints for the auditor to keep. */
  async checkpoint(): Promise<Checkpoint> {
    const head = await this.#certify({ webhooks: false });
    return view(head!);
  }

  /** The inclusion proof of the event at `position`, against the latest recorded head that covers it. */
  async prove(position: number): Promise<InclusionProof> {
    await this.#log.sync();
    const covering = this.#latest && this.#latest.treeSize >= position ? this.#latest : await this.#certify({ webhooks: false });
    return proveInclusion(this.#stored, this.#log.tree, stripped(covering!), position);
  }

  /**
   * The RFC 9162 consistency proof from the tree of `from` events to the recorded head of `to` events (default: the
   * latest), with that head.
   */
  async consistency(from: number, to?: number): Promise<{ fromSize: number; proof: string[]; checkpoint: SignedTreeHead }> {
    const head = to === undefined ? view(await this.#certify({ webhooks: false })) : await this.#recordedHead(to);
    if (from > head.treeSize) throw new ValidationError(`from (${from}) must not be above to (${head.treeSize})`, 'from');
    const proof = await consistencyProof(from, head.treeSize, this.#log.tree.rangeHash);
    return { fromSize: from, proof: proof.map((h) => h.toString('hex')), checkpoint: stripped(head) };
  }

  async #recordedHead(size: number): Promise<Checkpoint> {
    if (this.#latest?.treeSize === size) return view(this.#latest);
    const heads = await this.#store.readStream(TREE_HEADS_STREAM);
    const found = heads.findLast((e) => e.type === 'AuditTreeHeadPublished' && (e.data as RecordedHead).treeSize === size);
    const head = found?.data as RecordedHead | undefined;
    if (!head?.note || head.origin !== this.#options.origin) {
      throw new NotFoundError(`the log recorded no checkpoint of ${size} events (the latest has ${this.#latest?.treeSize ?? 0})`);
    }
    return view(head);
  }

  /** Does the log as stored now extend each checkpoint? The hash chain is checked too: an edit that left it broken is pinned to its position. */
  async verify(given: readonly { source: string; checkpoint: Checkpoint }[]): Promise<AuditReport> {
    const tree = await this.#log.sync();
    const keys = await this.#keys.recorded();
    // The key this engine holds is known too: its record may be among what an insider removed.
    const knownKeyIds = new Set([...keys.map((k) => k.keyId), (await this.#keys.key()).keyId]);
    const published = (await this.#store.readStream(TREE_HEADS_STREAM))
      .filter((e) => e.type === 'AuditTreeHeadPublished')
      .map((e) => e.data as Checkpoint);
    const checkpoints = await verifyCheckpoints(tree, given, knownKeyIds, published);
    const chain = await this.#store.verifyChain();
    return {
      ok: chain.ok && checkpoints.every((c) => c.ok),
      treeSize: tree.size,
      rootHash: tree.root().toString('hex'),
      chain,
      checkpoints,
    };
  }

  /**
   * Signs a head, has it cosigned and appends it to the log, with a webhook (`audit.checkpoint`) to every business that
   * has an endpoint. Skipped when the log has not grown since the last head recorded. Appended at the version of the
   * heads' stream read first: of two processes publishing at once, one head is recorded and the other is dropped.
   */
  async publish(): Promise<SignedTreeHead | undefined> {
    const head = await this.#certify({ webhooks: true });
    return head && view(head);
  }

  /**
   * The latest recorded head if the log has not grown beyond it (and it is signed by the current key), else a new one:
   * signed, cosigned by the witnesses, and recorded in the log with the tree's right edge. With `webhooks` (the
   * publisher) a log that has not grown gives undefined, and a new head is also sent to every webhook endpoint.
   */
  #certify(options: { webhooks: true }): Promise<RecordedHead | undefined>;
  #certify(options: { webhooks: false }): Promise<RecordedHead>;
  #certify({ webhooks }: { webhooks: boolean }): Promise<RecordedHead | undefined> {
    const run = this.#certifying.then(async () => {
      const key = await this.#keys.ensureRecorded();
      const version = await this.#store.streamVersion(TREE_HEADS_STREAM);
      const tree = await this.#log.sync();
      const fresh = this.#latest && tree.size <= this.#recordedThrough && this.#latest.keyId === key.keyId;
      if (fresh) return webhooks ? undefined : this.#latest;
      // The right edge and the root at this size, before anything else is awaited: the tree grows meanwhile.
      const frontier = this.#log.frontier();
      const signed = signTreeHead(key, this.#options.origin, tree.size, tree.root(), this.#clock.now().toISOString());
      const compactRange = await Promise.all(
        compactRangeSizes(signed.treeSize).map(async (r) => (await tree.rangeHash(r.start, r.start + r.size)).toString('hex')),
      );
      const outcome = await this.#witnessing.cosign(signed.note, signed.treeSize, (old) =>
        consistencyProof(old, signed.treeSize, tree.rangeHash),
      );
      const head: RecordedHead = { ...signed, note: outcome.note, compactRange, frontier };
      const deliveries = webhooks ? await this.#outlets.webhookWrites('audit.checkpoint', `tree-head-${head.treeSize}`, view(head)) : [];
      const published: AuditEvent = { type: 'AuditTreeHeadPublished', data: head };
      try {
        await this.#store.appendMany(
          [{ streamId: TREE_HEADS_STREAM, events: [published], expectedVersion: webhooks ? version : 'any' }, ...deliveries],
          { ...AUDIT_METADATA },
        );
      } catch (error) {
        if (webhooks && error instanceof ExpectedVersionConflictError) return undefined;
        throw error;
      }
      // What the table lacks is rebuilt at the next start: a failed write costs that, not the head.
      await this.#log.storeSubtrees(head.treeSize).catch((err: unknown) => this.#logger.error({ err }, 'audit subtrees not stored'));
      this.#latest = head;
      this.#recordedThrough = head.treeSize + 1 + deliveries.reduce((n, d) => n + d.events.length, 0);
      const quorum = this.#witnessing.quorum;
      this.#witnessStatus = {
        treeSize: head.treeSize,
        cosignatures: outcome.cosignatures,
        quorum,
        belowQuorum: outcome.cosignatures < quorum,
        refusals: outcome.refusals,
      };
      if (this.#witnessStatus.belowQuorum) {
        this.#logger.error(
          { treeSize: head.treeSize, cosignatures: outcome.cosignatures, quorum, refusals: outcome.refusals },
          'audit checkpoint below the witness quorum',
        );
      }
      this.#outlets.treeHeadSigned(head, this.#witnessStatus);
      return head;
    });
    this.#certifying = run.catch(() => undefined);
    return run;
  }

  /** A new stored signing key, recorded in the log (KeyCustody.rotate). */
  rotateKey(): Promise<SigningKeyActivatedData> {
    return this.#keys.rotate();
  }

  /** Every key the log recorded as a signing key, oldest first. */
  keys(): Promise<SigningKeyActivatedData[]> {
    return this.#keys.recorded();
  }

  /** Stops the timers and stores the tree's right edge (a server's, caught up first; a command's if it grew). */
  async close(): Promise<void> {
    this.#upkeep.close();
    await this.#edges.store(this.#log, { sync: this.#options.foldIntervalMs !== 0 });
    this.#unfollow();
    this.#log.close();
  }
}
