// A business's blacklists and its customers' saved devices: each entry a stream of its own, changed by command,
// listed from the read model.
import type { Kysely } from 'kysely';
import { handleCommand, type EventStore } from '../store/index.js';
import { readPage } from '../projections/index.js';
import { blacklistDecider, deviceDecider } from './deciders.js';
import { blacklistStream, deviceStream, type ListKind } from './events.js';
import type { Actor } from './pipeline.js';
import type { MonitoringTables } from './projection.js';
import type { SaveDeviceInput } from './request-schema.js';

export interface BlacklistEntry {
  value: string;
  addedAt: string;
  addedBy: string | null;
}

const metadataOf = (actor: Actor) => ({ businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId });

export class ListsAndDevices {
  readonly #db: Kysely<MonitoringTables>;
  readonly #store: EventStore;

  constructor(db: Kysely<any>, store: EventStore) {
    this.#db = db;
    this.#store = store;
  }

  async saveDevice(actor: Actor, input: SaveDeviceInput): Promise<{ changed: boolean }> {
    const stream = deviceStream(actor.businessId, input.customerId, input.device.deviceId);
    const { events } = await handleCommand(this.#store, stream, deviceDecider, { type: 'SaveDevice', data: input }, metadataOf(actor));
    return { changed: events.length > 0 };
  }

  async add(actor: Actor, list: ListKind, value: string): Promise<{ added: boolean }> {
    const command = { type: 'AddToBlacklist' as const, data: { list, value } };
    const { events } = await handleCommand(
      this.#store,
      blacklistStream(actor.businessId, list, value),
      blacklistDecider,
      command,
      metadataOf(actor),
    );
    return { added: events.length > 0 };
  }

  async remove(actor: Actor, list: ListKind, value: string): Promise<void> {
    const command = { type: 'RemoveFromBlacklist' as const, data: { list, value } };
    await handleCommand(this.#store, blacklistStream(actor.businessId, list, value), blacklistDecider, command, metadataOf(actor));
  }

  async list(
    businessId: string,
    list: ListKind,
    page: { page: number; limit: number },
  ): Promise<{ entries: BlacklistEntry[]; total: number }> {
    const base = this.#db.selectFrom('tm_blacklist').where('business_id', '=', businessId).where('list', '=', list);
    const { rows, total } = await readPage(base.selectAll().orderBy('added_at').orderBy('value'), base, page);
    return { entries: rows.map((r) => ({ value: r.value, addedAt: r.added_at, addedBy: r.added_by })), total };
  }
}
