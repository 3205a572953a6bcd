import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError, QuotaExceededError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { type EventStore, openSecrets, type Secrets, type StorageHealth } from '../store/index.js';
import { UPLOAD_ACCESS, uploadStream, type UploadAccess, type UploadEvent } from './events.js';
import { contentTypeOf, FILE_TYPES, UPLOAD_KEY } from './file-types.js';
import { UploadReadModel } from './read-model.js';
import { newUploadKey, sign, SIGNING_KEY_FILE, signingSecrets, signatureMatches, type Grant } from './signing.js';
import { UploadStorage } from './storage.js';

export interface UploadServiceOptions {
  dataDir: string;
  publicBaseUrl?: string;
  signingSecret?: string;
  /** How long an upload URL accepts its PUT (default 15 minutes). */
  uploadTtlMs?: number;
  /** How long a download URL of a private object works (default 5 minutes). */
  downloadTtlMs?: number;
  /** The largest object an upload URL accepts (default 100 MiB). */
  maxBytes?: number;
  /**
   * Per business: the bytes its uploads may hold, stored and still reserved by pending URLs at their limit (default
   * 10 GiB), and how many upload URLs may be pending, issued and neither used nor expired (default 50).
   */
  quota?: { bytes?: number; pendingUrls?: number };
  /** Told when an upload cannot be stored for lack of space, and when one is stored again. */
  storage?: StorageHealth;
}

export interface UploadActor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

/** The query parameters of a signed URL, as received (strings, possibly missing). */
export interface SignedQuery {
  expires?: string;
  max?: string;
  sig?: string;
}

export interface UploadDescription {
  key: string;
  url: string;
  expiresAt: string | null;
  size: number;
  sha256: string;
  contentType: string;
  access: UploadAccess;
}

const MINUTE = 60_000;

export class UploadService {
  readonly read: UploadReadModel;
  readonly storage: UploadStorage;
  readonly maxBytes: number;
  readonly #store: EventStore;
  readonly #clock: Clock;
  /** The URL keys: the first signs, any verifies. */
  readonly #secrets: () => Promise<Buffer[]>;
  readonly #stored: Secrets;
  readonly #base: string;
  readonly #uploadTtlMs: number;
  readonly #downloadTtlMs: number;
  /** Keys whose PUT is being received right now: a second PUT to one of them is refused, not raced. */
  readonly #receiving = new Set<string>();
  readonly #storage: StorageHealth | undefined;
  readonly quota: { bytes: number; pendingUrls: number };
  /** Per business, the URL being issued: quota checks and appends of one business run one at a time. */
  readonly #issuing = new Map<string, Promise<unknown>>();

  constructor(db: Kysely<any>, store: EventStore, clock: Clock, options: UploadServiceOptions) {
    this.read = new UploadReadModel(db);
    this.storage = new UploadStorage(db, options.dataDir);
    this.#store = store;
    this.#clock = clock;
    this.#stored = openSecrets(db, options.dataDir);
    this.#secrets = signingSecrets(this.#stored, options.signingSecret);
    this.#base = (options.publicBaseUrl ?? 'http://localhost:8080').replace(/\/$/, '');
    this.#uploadTtlMs = options.uploadTtlMs ?? 15 * MINUTE;
    this.#downloadTtlMs = options.downloadTtlMs ?? 5 * MINUTE;
    this.maxBytes = options.maxBytes ?? 100 * 1024 * 1024;
    this.#storage = options.storage;
    this.quota = { bytes: options.quota?.bytes ?? 10 * 1024 ** 3, pendingUrls: options.quota?.pendingUrls ?? 50 };
  }

  /** Issues a signed URL that accepts one PUT of a file of the given type, recorded in the log with its limits. */
  async authorize(
    actor: UploadActor,
    input: { fileType: string; access: string; maxBytes?: number },
  ): Promise<{ key: string; url: string; expiresAt: string; maxBytes: number }> {
    const fileType = input.fileType.toLowerCase();
    const contentType = contentTypeOf(fileType);
    if (!contentType) throw new ValidationError(`fileType must be one of: ${Object.keys(FILE_TYPES).join(', ')}`, 'fileType');
    if (!UPLOAD_ACCESS.includes(input.access as UploadAccess))
      throw new ValidationError(`access must be one of: ${UPLOAD_ACCESS.join(', ')}`, 'access');
    const maxBytes = input.maxBytes ?? this.maxBytes;
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > this.maxBytes) {
      throw new ValidationError(`maxBytes must be an integer from 1 to ${this.maxBytes}`, 'maxBytes');
    }
    return this.#oneAtATime(actor.businessId, () => this.#issue(actor, fileType, contentType, input.access as UploadAccess, maxBytes));
  }

  async #issue(actor: UploadActor, fileType: string, contentType: string, access: UploadAccess, maxBytes: number) {
    const now = this.#clock.now();
    await this.#checkQuota(actor.businessId, now, maxBytes);
    const key = `${newId(now)}.${fileType}`;
    const expires = Math.floor((now.getTime() + this.#uploadTtlMs) / 1000);
    const expiresAt = new Date(expires * 1000).toISOString();
    const event: UploadEvent = {
      type: 'UploadAuthorized',
      data: { key, fileType, contentType, access, maxBytes, expiresAt },
    };
    await this.#store.append(uploadStream(key), [event], {
      expectedVersion: 'no_stream',
      metadata: { businessId: actor.businessId, actor: actor.userId ?? 'api', ...(actor.requestId ? { requestId: actor.requestId } : {}) },
    });
    return { key, url: await this.#url({ method: 'PUT', key, expires, max: maxBytes }), expiresAt, maxBytes };
  }

  /** Refuses a URL that would take the business past its pending-URL count or its bytes, naming the limit. */
  async #checkQuota(businessId: string, now: Date, maxBytes: number): Promise<void> {
    const usage = await this.read.usage(businessId, now.toISOString());
    const untilExpiry = usage.nextExpiry ? Math.max(1, Math.ceil((Date.parse(usage.nextExpiry) - now.getTime()) / 1000)) : undefined;
    if (usage.pending >= this.quota.pendingUrls) {
      throw new QuotaExceededError(
        `upload URL quota reached: ${usage.pending} upload URLs of this business are pending (the limit is ${this.quota.pendingUrls}, UPLOAD_MAX_PENDING); use one or wait ${untilExpiry} s for one to expire`,
        untilExpiry,
      );
    }
    const held = usage.storedBytes + usage.reservedBytes;
    if (held + maxBytes > this.quota.bytes) {
      throw new QuotaExceededError(
        `upload storage quota reached: this business holds ${usage.storedBytes} bytes and its pending URLs may bring ${usage.reservedBytes} more; another URL of up to ${maxBytes} bytes would pass the limit of ${this.quota.bytes} bytes (UPLOAD_QUOTA_BYTES)`,
        usage.reservedBytes > 0 ? untilExpiry : undefined,
      );
    }
  }

  async #oneAtATime<T>(businessId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#issuing.get(businessId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.catch(() => undefined);
    this.#issuing.set(businessId, settled);
    void settled.then(() => {
      if (this.#issuing.get(businessId) === settled) this.#issuing.delete(businessId);
    });
    return run;
  }

  /** Takes the one PUT a signed URL allows: checks the grant, stores the body, then records it. */
  async receive(key: string, query: SignedQuery, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null, declaredLength?: number) {
    const grant = await this.#verify('PUT', key, query);
    const upload = await this.read.byKey(key);
    if (!upload) throw new NotFoundError('Upload not found');
    if (upload.status === 'uploaded' || this.#receiving.has(key)) throw new ConflictError(`upload ${key} was already received`);
    if (declaredLength !== undefined && declaredLength > grant.max) {
      throw new PayloadTooLargeError(`upload is larger than its limit of ${grant.max} bytes`);
    }
    this.#receiving.add(key);
    try {
      const { size, sha256 } = await this.storage.write(key, body, Math.min(grant.max, upload.max_bytes)).catch((error: unknown) => {
        this.#storage?.failed(error);
        throw error;
      });
      const event: UploadEvent = { type: 'UploadCompleted', data: { key, size, sha256, contentType: upload.content_type } };
      // The bytes are durable before the event says so: an acknowledged upload is never a dangling record.
      await this.#store.append(uploadStream(key), [event], {
        expectedVersion: 1,
        metadata: { businessId: upload.business_id, actor: 'upload-url' },
      });
      return { key, size, sha256, contentType: upload.content_type };
    } finally {
      this.#receiving.delete(key);
    }
  }

  /**
   * A new URL key, kept where every node reads it. The key it replaces still verifies (on PostgreSQL), so URLs
   * already handed out keep working until they expire. UPLOAD_SIGNING_SECRET, when set, is rotated by changing it.
   */
  async rotateKey(): Promise<void> {
    await this.#stored.get(SIGNING_KEY_FILE, newUploadKey);
    await this.#stored.rotate(SIGNING_KEY_FILE, newUploadKey());
  }

  /** A completed upload of the business, with a URL to read it: signed and short-lived unless the object is public. */
  async describe(businessId: string, key: string): Promise<UploadDescription> {
    const upload = await this.read.find(businessId, key);
    if (upload?.status !== 'uploaded') throw new NotFoundError('Upload not found');
    const base = { key, size: upload.size!, sha256: upload.sha256!, contentType: upload.content_type, access: upload.access };
    if (upload.access === 'public') return { ...base, url: `${this.#base}/uploads/${key}`, expiresAt: null };
    const expires = Math.floor((this.#clock.now().getTime() + this.#downloadTtlMs) / 1000);
    return { ...base, url: await this.#url({ method: 'GET', key, expires, max: 0 }), expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** The bytes behind a download URL: a public object needs no signature, a private one a valid unexpired one. */
  async open(key: string, query: SignedQuery): Promise<{ stream: Readable; size: number; contentType: string }> {
    if (!UPLOAD_KEY.test(key)) throw new NotFoundError('Upload not found');
    const upload = await this.read.byKey(key);
    if (upload?.status !== 'uploaded') throw new NotFoundError('Upload not found');
    if (upload.access !== 'public') await this.#verify('GET', key, { ...query, max: '0' });
    return { stream: await this.storage.read(key), size: upload.size!, contentType: upload.content_type };
  }

  /** A completed upload as a case refers to it; undefined for a key never uploaded or another business's. */
  attachment(businessId: string, key: string) {
    return this.read.attachment(businessId, key);
  }

  async #url(grant: Grant): Promise<string> {
    const query = new URLSearchParams({ expires: String(grant.expires), ...(grant.method === 'PUT' ? { max: String(grant.max) } : {}) });
    query.set('sig', sign((await this.#secrets())[0]!, grant));
    return `${this.#base}/uploads/${grant.key}?${query}`;
  }

  /** The signature is checked before the expiry, so that a client who edits `expires` learns only that it is invalid. */
  async #verify(method: Grant['method'], key: string, query: SignedQuery): Promise<Grant> {
    if (!UPLOAD_KEY.test(key)) throw new ForbiddenError('upload key is not valid');
    const expires = Number(query.expires);
    const max = Number(query.max);
    if (!query.sig || !Number.isSafeInteger(expires) || !Number.isSafeInteger(max))
      throw new ForbiddenError('upload URL signature is invalid');
    const grant: Grant = { method, key, expires, max };
    if (!signatureMatches(await this.#secrets(), grant, query.sig)) throw new ForbiddenError('upload URL signature is invalid');
    if (this.#clock.now().getTime() > expires * 1000) throw new ForbiddenError('upload URL has expired');
    return grant;
  }
}
