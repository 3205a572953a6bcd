import { ValidationError } from '../errors.js';
import type { EventMetadata, EventStore } from '../store/index.js';
import { CASE_GROUPINGS } from './alerts.js';
import { CASE_PRIORITIES, caseSettingsStream, DEFAULT_CASE_SETTINGS, type CaseSettings, type CaseSettingsEvent } from './events.js';

const MAX_FRESH_CASE_AFTER_HOURS = 24 * 366;

/** Settings as changes give them: the due hours of some priorities only. */
export type CaseSettingsChanges = Partial<Omit<CaseSettings, 'dueHours'>> & { dueHours?: Partial<CaseSettings['dueHours']> };

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

function checked(changes: CaseSettingsChanges): CaseSettingsChanges {
  if (changes.groupBy !== undefined && !CASE_GROUPINGS.includes(changes.groupBy))
    throw new ValidationError(`groupBy must be one of: ${CASE_GROUPINGS.join(', ')}`, 'groupBy');
  const hours = changes.freshCaseAfterHours;
  if (hours !== undefined && hours !== null && !(Number.isFinite(hours) && hours > 0 && hours <= MAX_FRESH_CASE_AFTER_HOURS))
    throw new ValidationError(
      `freshCaseAfterHours must be null or a number of hours above 0, at most ${MAX_FRESH_CASE_AFTER_HOURS}`,
      'freshCaseAfterHours',
    );
  if (changes.timeZone !== undefined && !(typeof changes.timeZone === 'string' && isTimeZone(changes.timeZone)))
    throw new ValidationError('timeZone must be an IANA time zone such as Europe/London or UTC', 'timeZone');
  for (const [priority, due] of Object.entries(changes.dueHours ?? {})) {
    if (!(CASE_PRIORITIES as readonly string[]).includes(priority))
      throw new ValidationError(`dueHours takes the priorities ${CASE_PRIORITIES.join(', ')}`, `dueHours.${priority}`);
    if (!(Number.isFinite(due) && due > 0 && due <= MAX_FRESH_CASE_AFTER_HOURS))
      throw new ValidationError(
        `dueHours.${priority} must be a number of hours above 0, at most ${MAX_FRESH_CASE_AFTER_HOURS}`,
        `dueHours.${priority}`,
      );
  }
  return changes;
}

/**
 * Each business's case settings, read from the log once and kept: every alert consults them, so they must cost no
 * read. A change, made here or by another process, drops the business's copy as the store reports it.
 */
export class CaseSettingsStore {
  readonly #store: EventStore;
  readonly #cache = new Map<string, Promise<CaseSettings>>();

  constructor(store: EventStore) {
    this.#store = store;
    store.subscribe((events) => {
      for (const e of events) if (e.type === 'CaseSettingsChanged') this.#cache.delete(e.metadata.businessId);
    });
  }

  get(businessId: string): Promise<CaseSettings> {
    let settings = this.#cache.get(businessId);
    if (!settings) {
      settings = this.#read(businessId).then((s) => s.settings);
      this.#cache.set(businessId, settings);
      // A failed read is not kept: the next caller reads again.
      settings.catch(() => this.#cache.delete(businessId));
    }
    return settings;
  }

  /** Changes some settings; the event carries all of them. Unchanged settings append nothing. */
  async change(businessId: string, changes: CaseSettingsChanges, metadata: EventMetadata): Promise<CaseSettings> {
    checked(changes);
    const { settings, version } = await this.#read(businessId);
    const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    const next: CaseSettings = { ...settings, ...given, dueHours: { ...settings.dueHours, ...changes.dueHours } };
    if (JSON.stringify(next) === JSON.stringify(settings)) return settings;
    const event: CaseSettingsEvent = { type: 'CaseSettingsChanged', data: next };
    await this.#store.append(caseSettingsStream(businessId), [event], { expectedVersion: version, metadata });
    this.#cache.delete(businessId);
    return next;
  }

  async #read(businessId: string): Promise<{ settings: CaseSettings; version: number }> {
    const events = await this.#store.readStream(caseSettingsStream(businessId));
    const last = events.at(-1) as unknown as CaseSettingsEvent | undefined;
    // An old event's fourEyes is the approvals policy's (approvals/policy.ts): not read here, so no change writes it again.
    const { fourEyes: _, ...data } = last?.data ?? {};
    const settings = { ...DEFAULT_CASE_SETTINGS, ...data };
    return { settings: { ...settings, dueHours: { ...DEFAULT_CASE_SETTINGS.dueHours, ...data.dueHours } }, version: events.length };
  }
}
