import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { ExpectedVersionConflictError, type EventStore, type Secrets, type StreamWrite } from '../store/index.js';
import {
  AUDIT_METADATA,
  KEYS_STREAM,
  TREE_HEADS_STREAM,
  type AuditEvent,
  type KeyActivationReason,
  type SigningKeyActivatedData,
} from './events.js';
import { proveInclusion, type InclusionProof } from './inclusion.js';
import { LogTree } from './log-tree.js';
import { checkOrigin } from './checkpoint-text.js';
import { compactRangeSizes } from './merkle.js';
import { KEY_ENV, KEY_FILE, loadSigningKey, newPrivateKeyPem, type SigningKey } from './signing-key.js';
import { signTreeHead, type Checkpoint, type SignedTreeHead } from './tree-head.js';
import { verifyCheckpoints, type AuditReport } from './verify.js';

/** Where published tree heads go besides the log: the webhook endpoints, and the metrics. */
export interface TreeHeadOutlets {
  /** The writes that deliver `payload` as a webhook of `eventType` to every business with an endpoint. */
  webhookWrites(eventType: string, subject: string, payload: unknown): Promise<StreamWrite[]>;
  treeHeadSigned(head: SignedTreeHead): void;
}

export interface AuditOptions {
  /** The log's origin line (AUDIT_LOG_ORIGIN): the name checkpoints carry and witnesses know the log by. */
  origin: string;
  /** AUDIT_SIGNING_KEY: a private key (PEM or base64 PKCS#8) that overrides the key the store keeps. */
  signingKey?: string;
  /** Seconds between published tree heads (0: none). */
  checkpointIntervalSeconds?: number;
  /** How often queued events are hashed into the tree, in ms (0: only on demand). */
  foldIntervalMs?: number;
}

const FOLD_INTERVAL_MS = 1000;

/** The claim of the node that publishes tree heads for the whole cluster. */
const PUBLISHER_CLAIM = 'audit-tree-head-publisher';

/**
 * The verifiable log (RFC 9162 in spirit): a Merkle tree over every event, signed tree heads, inclusion proofs for one
 * event and consistency proofs that the log extends what an auditor was once shown.
 */
export class AuditService {
  readonly #store: EventStore;
  /** The same log read without upcasters: proofs show events exactly as written. */
  readonly #stored: EventStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #outlets: TreeHeadOutlets;
  readonly #secrets: Secrets;
  readonly #options: AuditOptions;
  readonly #log: LogTree;
  readonly #unfollow: () => void;
  readonly #timers: NodeJS.Timeout[] = [];
  /** Loaded (or generated) on first use, so an engine that never signs leaves no key file behind. */
  #key: SigningKey | undefined;
  #loading: Promise<SigningKey> | undefined;
  /** The last head handed out, reused while the tree has not grown. */
  #head: SignedTreeHead | undefined;
  /** Tree size after the last publication's own events: a log that has not grown beyond them is not published again. */
  #publishedThrough = -1;
  #closed = false;
  /** Ends the publisher's wait between two heads, at close. */
  #wake: (() => void) | undefined;

  private constructor(
    store: EventStore,
    stored: EventStore,
    clock: Clock,
    logger: Logger,
    outlets: TreeHeadOutlets,
    secrets: Secrets,
    options: AuditOptions,
  ) {
    this.#store = store;
    this.#stored = stored;
    this.#clock = clock;
    this.#logger = logger;
    this.#outlets = outlets;
    this.#secrets = secrets;
    this.#options = options;
    this.#log = new LogTree(store);
    this.#unfollow = this.#log.follow();
  }

  static async start(
    input: { store: EventStore; stored: EventStore; clock: Clock; logger: Logger; outlets: TreeHeadOutlets; secrets: Secrets },
    options: AuditOptions,
  ): Promise<AuditService> {
    checkOrigin(options.origin);
    const service = new AuditService(input.store, input.stored, input.clock, input.logger, input.outlets, input.secrets, options);
    const foldMs = options.foldIntervalMs ?? FOLD_INTERVAL_MS;
    if (foldMs > 0) service.#every(foldMs, () => service.#log.sync());
    const interval = options.checkpointIntervalSeconds ?? 0;
    if (interval > 0) service.#every(interval * 1000, () => service.#publishWhileClaimed(interval * 1000));
    return service;
  }

  /** The public key tree heads are signed with now, its id, and its verifier key for the log's origin. */
  async publicKey(): Promise<{ keyId: string; publicKey: string; origin: string; vkey: string }> {
    const key = await this.#signingKey();
    const origin = this.#options.origin;
    return { keyId: key.keyId, publicKey: key.publicKey, origin, vkey: key.noteSigner(origin).verifier.vkey };
  }

  /** A signed head of the tree over the whole log as it is now. */
  async treeHead(): Promise<SignedTreeHead> {
    const key = await this.#ensureKeyRecorded();
    const tree = await this.#log.sync();
    if (this.#head?.treeSize !== tree.size || this.#head.keyId !== key.keyId) {
      this.#head = signTreeHead(key, this.#options.origin, tree.size, tree.root(), this.#clock.now().toISOString());
      this.#outlets.treeHeadSigned(this.#head);
    }
    return this.#head;
  }

  /** A signed tree head with its compact range: what `audit checkpoint` prints for the auditor to keep. */
  async checkpoint(): Promise<Checkpoint> {
    const head = await this.treeHead();
    const tree = await this.#log.sync();
    const compactRange = await Promise.all(
      compactRangeSizes(head.treeSize).map(async (r) => (await tree.rangeHash(r.start, r.start + r.size)).toString('hex')),
    );
    return { ...head, compactRange };
  }

  /** The inclusion proof of the event at `position` against the latest signed tree head. */
  async prove(position: number): Promise<InclusionProof> {
    const head = await this.treeHead();
    return proveInclusion(this.#stored, this.#log.tree, head, position);
  }

  /** Does the log as stored now extend each checkpoint? The hash chain is checked too: an edit that left it broken is pinned to its position. */
  async verify(given: readonly { source: string; checkpoint: Checkpoint }[]): Promise<AuditReport> {
    const tree = await this.#log.sync();
    const keys = await this.#recordedKeys();
    // The key this engine holds is known too: its record may be among what an insider removed.
    const knownKeyIds = new Set([...keys.map((k) => k.keyId), (await this.#signingKey()).keyId]);
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
   * Signs a head and appends it to the log, with a webhook (`audit.checkpoint`) to every business that has an
   * endpoint. Skipped when the log has not grown since the last publication. Appended at the version of the heads'
   * stream read first: of two processes publishing at once, one head is recorded and the other is dropped.
   */
  async publish(): Promise<SignedTreeHead | undefined> {
    if ((await this.#log.sync()).size <= this.#publishedThrough) return undefined;
    const version = await this.#store.streamVersion(TREE_HEADS_STREAM);
    const head = await this.checkpoint();
    const published: AuditEvent = { type: 'AuditTreeHeadPublished', data: head };
    const deliveries = await this.#outlets.webhookWrites('audit.checkpoint', `tree-head-${head.treeSize}`, head);
    try {
      await this.#store.appendMany([{ streamId: TREE_HEADS_STREAM, events: [published], expectedVersion: version }, ...deliveries], {
        ...AUDIT_METADATA,
      });
    } catch (error) {
      if (error instanceof ExpectedVersionConflictError) return undefined;
      throw error;
    }
    this.#publishedThrough = head.treeSize + 1 + deliveries.reduce((n, d) => n + d.events.length, 0);
    return head;
  }

  /**
   * One node of the cluster publishes: the one holding the publisher's claim, which it keeps until it closes or
   * dies. Every node's timer tries to take it, so another node takes over at its next tick after that. On SQLite
   * the one process holds it.
   */
  async #publishWhileClaimed(intervalMs: number): Promise<void> {
    await this.#store.exclusive(PUBLISHER_CLAIM, async () => {
      while (!this.#closed) {
        await this.publish().catch((err: unknown) => this.#logger.error({ err }, 'audit tree head could not be published'));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalMs);
          timer.unref();
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    });
  }

  /**
   * Replaces the stored key (the key file, or the row every node reads) with a new one and records the new public
   * key in the log; other processes reload it when they see the record. A key from the environment is rotated by
   * changing the variable; the next signing records it.
   */
  async rotateKey(): Promise<SigningKeyActivatedData> {
    const previous = await this.#ensureKeyRecorded();
    if (previous.source === KEY_ENV) {
      throw new Error(`the signing key comes from ${KEY_ENV}: set a new key there; the engine records it when it next signs`);
    }
    await this.#secrets.rotate(KEY_FILE, newPrivateKeyPem());
    const next = await loadSigningKey(this.#secrets, undefined);
    this.#key = next;
    return this.#record(next, 'rotation', previous.keyId);
  }

  /** Every key the log recorded as a signing key, oldest first. */
  async #recordedKeys(): Promise<SigningKeyActivatedData[]> {
    const events = await this.#store.readStream(KEYS_STREAM);
    return events.filter((e) => e.type === 'AuditSigningKeyActivated').map((e) => e.data as SigningKeyActivatedData);
  }

  keys(): Promise<SigningKeyActivatedData[]> {
    return this.#recordedKeys();
  }

  /**
   * Makes sure the log names the key about to sign. Another process may have rotated the stored key: then it is
   * reloaded rather than the old key recorded again.
   */
  async #ensureKeyRecorded(): Promise<SigningKey> {
    let key = await this.#signingKey();
    let latest = (await this.#recordedKeys()).at(-1);
    if (latest?.keyId === key.keyId) return key;
    if (latest && key.source !== KEY_ENV) {
      key = this.#key = await loadSigningKey(this.#secrets, undefined);
      latest = (await this.#recordedKeys()).at(-1);
      if (latest?.keyId === key.keyId) return key;
    }
    await this.#record(key, latest ? 'configured' : 'first use', latest?.keyId ?? null);
    return key;
  }

  #signingKey(): Promise<SigningKey> {
    if (this.#key) return Promise.resolve(this.#key);
    this.#loading ??= loadSigningKey(this.#secrets, this.#options.signingKey).then((k) => (this.#key = k));
    return this.#loading;
  }

  async #record(key: SigningKey, reason: KeyActivationReason, previousKeyId: string | null): Promise<SigningKeyActivatedData> {
    const data: SigningKeyActivatedData = {
      keyId: key.keyId,
      publicKey: key.publicKey,
      previousKeyId,
      reason,
      activatedAt: this.#clock.now().toISOString(),
    };
    const version = await this.#store.streamVersion(KEYS_STREAM);
    const event: AuditEvent = { type: 'AuditSigningKeyActivated', data };
    try {
      await this.#store.append(KEYS_STREAM, [event], { expectedVersion: version, metadata: { ...AUDIT_METADATA } });
    } catch (error) {
      // Another process recorded a key meanwhile; the caller's next signing looks again.
      if (!(error instanceof ExpectedVersionConflictError)) throw error;
    }
    this.#logger.info({ keyId: data.keyId, reason, source: key.source }, 'audit signing key recorded in the log');
    return data;
  }

  #every(ms: number, run: () => Promise<unknown>): void {
    const timer = setInterval(() => void run().catch((err) => this.#logger.error({ err }, 'audit tree upkeep failed')), ms);
    timer.unref();
    this.#timers.push(timer);
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
    for (const t of this.#timers) clearInterval(t);
    this.#unfollow();
  }
}
