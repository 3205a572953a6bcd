import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { handleCommand, type EventStore, type StoredEvent } from '../store/index.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { DEFAULT_PARTITIONS, PartitionService } from '../partitions/index.js';
import { checkBusinessId, collidingBusinessIds } from './business-id.js';
import { apiKeyDecider } from './decider.js';
import { apiKeyStream } from './events.js';
import { type KeySummary, listKeys } from './keys-read.js';
import type { ApiKeysTable, AuthTables } from './projection.js';
import { hashSecret, MIN_SECRET_LENGTH, newApiKey, newApiSecret, newWebhookSecret, secretMatches } from './secrets.js';

/** The caller of a request, once its credentials check out. Every domain call is scoped by `businessId`. */
export interface Principal {
  apiKey: string;
  /** The key's name (`keys create --name`): how an action by a key bound to no user is shown. */
  keyName: string;
  businessId: string;
  userId?: string;
}

/** The actor id of a key bound to no user, in events, read models and case logs alike. */
export const keyActorId = (apiKey: string): string => `apikey:${apiKey}`;
/** How such a key is shown wherever a person's name would be. */
export const keyActorName = (keyName: string): string => `API key ${keyName}`;

export interface IssuedKey {
  apiKey: string;
  apiSecret: string;
  webhookSecret: string;
  businessId: string;
}

const SYSTEM = { businessId: 'system', actor: 'system' } as const;

/** A person acting on their own business's keys (the console): their id is the events' actor. */
export interface KeyActor {
  businessId: string;
  userId: string;
  requestId?: string;
}

export class AuthService {
  readonly #db: Kysely<AuthTables>;
  readonly #store: EventStore;
  readonly #clock: Clock;
  /** Verified keys, so that auth costs a hash and a map lookup; dropped on revoke or rebind, local or remote. */
  readonly #cache = new Map<string, ApiKeysTable>();

  readonly #partitions: PartitionService;
  readonly #partitionCount: number;

  /** `partitionCount`: what a new business's first key records as its partition count (PARTITIONS). */
  constructor(db: Kysely<any>, store: EventStore, clock: Clock, partitionCount = DEFAULT_PARTITIONS) {
    this.#db = db;
    this.#store = store;
    this.#clock = clock;
    this.#partitions = new PartitionService(store);
    this.#partitionCount = partitionCount;
    store.subscribe((events) => this.#invalidate(events));
  }

  /**
   * Issues a key. A new business's id must pass checkBusinessId; a business that already has keys keeps its id
   * (one made before ids were checked still gets keys). A new business with '-' is marked as one whose stream ids
   * encode it, and gets its partition count recorded. A chosen secret must be as long as a generated one.
   */
  async issue(
    input: { name: string; businessId?: string; apiKey?: string; apiSecret?: string; userId?: string },
    by?: KeyActor,
  ): Promise<IssuedKey> {
    const businessId = input.businessId ?? `biz_${newId(this.#clock.now())}`;
    const known = input.businessId !== undefined && (await this.#knownBusiness(businessId));
    if (input.businessId !== undefined && !known) checkBusinessId(businessId);
    if (input.apiSecret !== undefined && input.apiSecret.length < MIN_SECRET_LENGTH)
      throw new ValidationError(`apiSecret must be at least ${MIN_SECRET_LENGTH} characters, got ${input.apiSecret.length}`, 'apiSecret');
    const apiKey = input.apiKey ?? newApiKey();
    const apiSecret = input.apiSecret ?? newApiSecret();
    const webhookSecret = (await this.#currentWebhookSecret(businessId)) ?? newWebhookSecret();
    // A new business's set-up fixes its partition count, before its key: no decision of it is made under another.
    if (!known) await this.#partitions.fix({ businessId, userId: by?.userId, requestId: by?.requestId }, this.#partitionCount);
    await handleCommand(
      this.#store,
      apiKeyStream(apiKey),
      apiKeyDecider,
      {
        type: 'IssueApiKey',
        data: {
          apiKey,
          secretHash: hashSecret(apiSecret),
          businessId,
          name: input.name,
          webhookSecret,
          userId: input.userId,
          ...(!known && businessId.includes('-') ? { dashEncoded: true as const } : {}),
        },
      },
      by ? { businessId, actor: by.userId, requestId: by.requestId } : { ...SYSTEM, businessId },
    );
    return { apiKey, apiSecret, webhookSecret, businessId };
  }

  /** Revokes a key; a person may revoke only their own business's keys (another's is not found). */
  async revoke(apiKey: string, by?: KeyActor): Promise<void> {
    if (by) {
      const row = await this.#db.selectFrom('api_keys').select('business_id').where('api_key', '=', apiKey).executeTakeFirst();
      if (row?.business_id !== by.businessId) throw new NotFoundError(`API key ${apiKey} not found`);
    }
    const metadata = by ? { businessId: by.businessId, actor: by.userId, requestId: by.requestId } : SYSTEM;
    await handleCommand(this.#store, apiKeyStream(apiKey), apiKeyDecider, { type: 'RevokeApiKey', data: { apiKey } }, metadata);
  }

  async bindUser(apiKey: string, userId: string, businessId: string): Promise<void> {
    await handleCommand(
      this.#store,
      apiKeyStream(apiKey),
      apiKeyDecider,
      { type: 'BindApiKeyToUser', data: { apiKey, userId } },
      { businessId, actor: 'system' },
    );
  }

  /** Rotates the signing secret of every active key of the business; the old one stays valid for 24 hours. */
  async rotateWebhookSecret(businessId: string): Promise<string> {
    const webhookSecret = newWebhookSecret();
    for (const key of await this.#activeKeys(businessId)) {
      await handleCommand(
        this.#store,
        apiKeyStream(key.api_key),
        apiKeyDecider,
        { type: 'RotateWebhookSecret', data: { apiKey: key.api_key, webhookSecret, at: this.#clock.now() } },
        { businessId, actor: 'system' },
      );
    }
    return webhookSecret;
  }

  /** The secrets a webhook of this business is signed with: the current one and any still inside its overlap. */
  async webhookSecrets(businessId: string): Promise<string[]> {
    const now = this.#clock.now().toISOString();
    const secrets = new Set<string>();
    for (const key of await this.#activeKeys(businessId)) {
      secrets.add(key.webhook_secret);
      if (key.previous_webhook_secret && key.previous_valid_until && key.previous_valid_until > now)
        secrets.add(key.previous_webhook_secret);
    }
    return [...secrets];
  }

  async verify(apiKey: string | undefined, apiSecret: string | undefined): Promise<Principal | undefined> {
    if (!apiKey || !apiSecret) return undefined;
    let row = this.#cache.get(apiKey);
    if (!row) {
      row = await this.#db.selectFrom('api_keys').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
      if (!row) return undefined;
      this.#cache.set(apiKey, row);
    }
    if (row.revoked || !secretMatches(apiSecret, row.secret_hash)) return undefined;
    return { apiKey, keyName: row.name, businessId: row.business_id, ...(row.user_id ? { userId: row.user_id } : {}) };
  }

  async list(): Promise<KeySummary[]> {
    return listKeys(this.#db);
  }

  /** One business's keys, oldest first. */
  async listOf(businessId: string): Promise<KeySummary[]> {
    return listKeys(this.#db, businessId);
  }

  async hasAnyKey(): Promise<boolean> {
    return (await this.#db.selectFrom('api_keys').select('api_key').limit(1).executeTakeFirst()) !== undefined;
  }

  /** Pairs of businesses whose raw ids in stream ids can collide (see collidingBusinessIds and rawInStreamIds). */
  async collidingBusinesses(raw: ReadonlySet<string>): Promise<[string, string][]> {
    const rows = await this.#db.selectFrom('api_keys').select('business_id').distinct().execute();
    return collidingBusinessIds(rows.map((r) => r.business_id).filter((id) => !id.includes('-') || raw.has(id)));
  }

  /**
   * Businesses with '-' whose stream ids hold the id raw: those whose first key was issued before keys were marked
   * dashEncoded. Read from each such business's oldest key, so every node finds the same set.
   */
  async rawInStreamIds(): Promise<Set<string>> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .select(['business_id', 'api_key'])
      .where('business_id', 'like', '%-%')
      .orderBy('created_at')
      .execute();
    const raw = new Set<string>();
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.business_id)) continue;
      seen.add(row.business_id);
      const [issued] = await this.#store.readStream(apiKeyStream(row.api_key));
      if (issued?.type === 'ApiKeyIssued' && !(issued.data as { dashEncoded?: true }).dashEncoded) raw.add(row.business_id);
    }
    return raw;
  }

  async #knownBusiness(businessId: string): Promise<boolean> {
    const row = await this.#db.selectFrom('api_keys').select('api_key').where('business_id', '=', businessId).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async #activeKeys(businessId: string): Promise<ApiKeysTable[]> {
    return this.#db.selectFrom('api_keys').selectAll().where('business_id', '=', businessId).where('revoked', '=', 0).execute();
  }

  async #currentWebhookSecret(businessId: string): Promise<string | undefined> {
    return (await this.#activeKeys(businessId))[0]?.webhook_secret;
  }

  #invalidate(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.type.startsWith('ApiKey') || e.type === 'WebhookSecretRotated') this.#cache.delete((e.data as { apiKey: string }).apiKey);
    }
  }
}
