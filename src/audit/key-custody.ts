import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { ExpectedVersionConflictError, type EventStore, type Secrets } from '../store/index.js';
import { AUDIT_METADATA, KEYS_STREAM, type AuditEvent, type KeyActivationReason, type SigningKeyActivatedData } from './events.js';
import { KEY_FILE, loadSigningKey, newPrivateKeyPem, type SigningKey } from './signing-key.js';

/** Where the signing key comes from (AUDIT_SIGNING_KEY, AUDIT_SIGNING_KEY_FILE, or neither: kept with the data). */
export interface KeySources {
  /** AUDIT_SIGNING_KEY: a private key (PEM or base64 PKCS#8) that overrides the key the store keeps. */
  signingKey?: string;
  /** AUDIT_SIGNING_KEY_FILE: a file holding that key, outside DATA_DIR. */
  signingKeyFile?: string;
}

/**
 * The key that signs tree heads: where it is held, which keys the log recorded as signing keys, and rotation. The
 * log names every key before it signs, so an auditor can tell a rotation from a key swapped behind the log's back.
 */
export class KeyCustody {
  readonly #store: EventStore;
  readonly #secrets: Secrets;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #sources: KeySources;
  /** Loaded (or generated) on first use, so an engine that never signs leaves no key file behind. */
  #key: SigningKey | undefined;
  #loading: Promise<SigningKey> | undefined;

  constructor(input: { store: EventStore; secrets: Secrets; clock: Clock; logger: Logger }, sources: KeySources) {
    this.#store = input.store;
    this.#secrets = input.secrets;
    this.#clock = input.clock;
    this.#logger = input.logger;
    this.#sources = sources;
  }

  /** Where the signing key comes from, and what follows for an insider: for /healthz and `audit public-key`. */
  custody(): { source: 'environment' | 'file' | 'with the data'; warning?: string } {
    if (this.#sources.signingKey) return { source: 'environment' };
    if (this.#sources.signingKeyFile) return { source: 'file' };
    return {
      source: 'with the data',
      warning:
        'the audit signing key was generated and is kept with the data (DATA_DIR or the database): an insider with the data holds the key too, and only witnesses protect the history; set AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE',
    };
  }

  /** The key in use, loaded once. */
  key(): Promise<SigningKey> {
    if (this.#key) return Promise.resolve(this.#key);
    this.#loading ??= loadSigningKey(this.#secrets, this.#sources.signingKey, this.#sources.signingKeyFile).then((k) => (this.#key = k));
    return this.#loading;
  }

  /** Every key the log recorded as a signing key, oldest first. */
  async recorded(): Promise<SigningKeyActivatedData[]> {
    return (await this.#read()).keys;
  }

  /** The recorded keys, and the stream's version they were read at: a record appended after them expects it. */
  async #read(): Promise<{ keys: SigningKeyActivatedData[]; version: number }> {
    const events = await this.#store.readStream(KEYS_STREAM);
    const keys = events.filter((e) => e.type === 'AuditSigningKeyActivated').map((e) => e.data as SigningKeyActivatedData);
    return { keys, version: events.at(-1)?.streamVersion ?? 0 };
  }

  /**
   * The key about to sign, once the log names it. Another process may have rotated the stored key: then it is
   * reloaded rather than the old key recorded again.
   */
  async ensureRecorded(): Promise<SigningKey> {
    let key = await this.key();
    let read = await this.#read();
    let latest = read.keys.at(-1);
    if (latest?.keyId === key.keyId) return key;
    if (latest && !this.#fromOutside()) {
      key = this.#key = await loadSigningKey(this.#secrets, undefined);
      read = await this.#read();
      latest = read.keys.at(-1);
      if (latest?.keyId === key.keyId) return key;
    }
    // Expecting the version the keys were read at: a node that recorded the same key meanwhile makes this a conflict,
    // not a second record of it.
    await this.#record(key, latest ? 'configured' : 'first use', latest?.keyId ?? null, read.version);
    return key;
  }

  /**
   * Replaces the stored key (the key file, or the row every node reads) with a new one and records the new public
   * key in the log; other processes reload it when they see the record. A key from the environment or a file is
   * rotated by changing it there; the next signing records it.
   */
  async rotate(): Promise<SigningKeyActivatedData> {
    const previous = await this.ensureRecorded();
    if (this.#fromOutside()) {
      throw new Error(`the signing key comes from ${previous.source}: put a new key there; the engine records it when it next signs`);
    }
    await this.#secrets.rotate(KEY_FILE, newPrivateKeyPem());
    const next = await loadSigningKey(this.#secrets, undefined);
    this.#key = next;
    return this.#record(next, 'rotation', previous.keyId, (await this.#read()).version);
  }

  #fromOutside(): boolean {
    return Boolean(this.#sources.signingKey || this.#sources.signingKeyFile);
  }

  async #record(
    key: SigningKey,
    reason: KeyActivationReason,
    previousKeyId: string | null,
    version: number,
  ): Promise<SigningKeyActivatedData> {
    const data: SigningKeyActivatedData = {
      keyId: key.keyId,
      publicKey: key.publicKey,
      previousKeyId,
      reason,
      activatedAt: this.#clock.now().toISOString(),
    };
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
}
