import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { ExpectedVersionConflictError, fold, handleCommand, type EventStore, type StreamWrite } from '../store/index.js';
import type { UserRef, UserService } from '../users/index.js';
import { caseMetadata, CaseActors, type CaseActor } from './actors.js';
import { BulkActions, type BulkAction, type BulkResult, type BulkSelection } from './bulk.js';
import { closeCommand } from './closing.js';
import { caseDecider, type CaseCommand, type CaseState } from './decider.js';
import { caseRecordStream, caseStream, type AttachmentRef, type CaseRecordEvent, type CaseSettings } from './events.js';
import { AlertGrouping, type AlertInput, type AlertWrites } from './grouping.js';
import { CaseReadModel, type Case, type CaseFilters, type CaseSort } from './read-model.js';
import { CaseSettingsStore, type CaseSettingsChanges } from './settings.js';
import { dueAt, isOverdue } from './due.js';
import { takeNextCase } from './next-case.js';
import {
  checkOpening,
  normaliseDate,
  type AttachmentLookup,
  type CaseUpdate,
  type ListedCase,
  type NewCaseInput,
  type OpeningInput,
} from './inputs.js';

const RETRIES = 3;

/**
 * A new case's opening, plus a link on its record's stream at the version read before checking for an active
 * case: that version is what makes two concurrent openings for one record unable to both commit.
 */
function newCaseWrites(
  businessId: string,
  recordVersion: number,
  opening: Extract<CaseCommand, { type: 'OpenCase' }>['data'],
): StreamWrite[] {
  const opened = caseDecider.decide({ type: 'OpenCase', data: opening }, caseDecider.initialState());
  const link: CaseRecordEvent = { type: 'CaseRecordLinked', data: { caseId: opening.caseId, record: opening.record } };
  return [
    { streamId: caseRecordStream(businessId, opening.record), events: [link], expectedVersion: recordVersion },
    { streamId: caseStream(businessId, opening.caseId), events: opened, expectedVersion: 'no_stream' },
  ];
}

export class CaseService {
  readonly read: CaseReadModel;
  readonly #store: EventStore;
  readonly #clock: Clock;
  readonly #actors: CaseActors;
  readonly #attachment: AttachmentLookup;
  readonly #settings: CaseSettingsStore;
  readonly #grouping: AlertGrouping;
  readonly #bulk: BulkActions;

  constructor(db: Kysely<any>, store: EventStore, clock: Clock, users: UserService, attachment: AttachmentLookup) {
    this.read = new CaseReadModel(db);
    this.#store = store;
    this.#clock = clock;
    this.#actors = new CaseActors(users);
    this.#attachment = attachment;
    this.#settings = new CaseSettingsStore(store);
    this.#grouping = new AlertGrouping(store, this.read, this.#settings, clock);
    this.#bulk = new BulkActions(store, this.read, this.#actors, clock);
  }

  /**
   * The writes that add an alert to its subject's open case, or open one, for the caller to append atomically with
   * its own events. They expect stream versions: when another alert, an investigator or another process changed the
   * subject's case meanwhile, the append fails with ExpectedVersionConflictError; call again with `fresh: false`.
   */
  async alertWrites(input: AlertInput & { actor?: { userId?: string } }): Promise<AlertWrites> {
    const by = await this.#actors.by({ ...input.actor, businessId: input.businessId });
    return this.#grouping.writes(input, by);
  }

  /**
   * The writes that open a case for a record, or that log a new occurrence on the record's active case, for the
   * caller to append atomically with its own events: `store.appendMany([...ownWrites, ...writes], metadata)`.
   * The writes carry expected versions, so a concurrent opening for the same record makes that append fail with
   * ExpectedVersionConflictError (a 409) rather than open a second case: call again and retry.
   */
  async openingWrites(input: OpeningInput): Promise<{ caseId: string; reused: boolean; writes: StreamWrite[] }> {
    checkOpening(input);
    const by = await this.#actors.by({ ...input.actor, businessId: input.businessId });
    // The record stream's version is read before the index, so an opening committed in between fails our append.
    const recordVersion = input.fresh ? 0 : await this.#store.streamVersion(caseRecordStream(input.businessId, input.record));
    const active = input.fresh ? undefined : await this.read.activeCaseOf(input.businessId, input.record);
    if (active) {
      const streamId = caseStream(input.businessId, active);
      const history = await this.#store.readStream(streamId);
      const command: CaseCommand = {
        type: 'LogOccurrence',
        data: { caseId: active, by, title: input.title, description: input.description, priority: input.priority },
      };
      const events = caseDecider.decide(command, fold(caseDecider, history));
      return { caseId: active, reused: true, writes: [{ streamId, events, expectedVersion: history.length }] };
    }
    const caseId = newId(this.#clock.now());
    const { businessId, module, record, title, description, priority } = input;
    const opening = { caseId, by, module, record, title, description, priority, assignedTo: null, dueDate: null, tasks: [] };
    return { caseId, reused: false, writes: newCaseWrites(businessId, recordVersion, opening) };
  }

  /** Opens (or joins) the record's case on its own, retrying a lost race against a concurrent opening. */
  async open(input: OpeningInput): Promise<Case> {
    for (let attempt = 0; ; attempt++) {
      const { caseId, writes } = await this.openingWrites(input);
      try {
        const by = await this.#actors.by({ ...input.actor, businessId: input.businessId });
        await this.#store.appendMany(writes, { businessId: input.businessId, actor: by._id });
        return this.get(input.businessId, caseId);
      } catch (error) {
        if (attempt >= RETRIES || !(error instanceof ExpectedVersionConflictError)) throw error;
      }
    }
  }

  /** An investigator's new case. A record with an active case gets no second one: the answer names the active case. */
  async create(actor: CaseActor, input: NewCaseInput): Promise<Case> {
    checkOpening({ ...input, businessId: actor.businessId });
    const by = await this.#actors.by(actor);
    const assignedTo = input.assignedTo === undefined ? null : await this.#actors.user(actor.businessId, input.assignedTo, 'assignedTo');
    const dueDate = normaliseDate(input.dueDate, 'dueDate') ?? null;
    for (let attempt = 0; ; attempt++) {
      const recordVersion = await this.#store.streamVersion(caseRecordStream(actor.businessId, input.record));
      const active = await this.read.activeCaseOf(actor.businessId, input.record);
      if (active) throw new ConflictError(`Record ${input.record.type} ${input.record.id} already has an active case ${active}`);
      const now = this.#clock.now();
      const caseId = newId(now);
      const tasks = (input.tasks ?? []).map((text) => ({ _id: newId(now), text }));
      const { module, record, title, description, priority } = input;
      const opening = { caseId, by, module, record, title, description, priority, assignedTo, dueDate, tasks };
      try {
        await this.#store.appendMany(newCaseWrites(actor.businessId, recordVersion, opening), caseMetadata(actor, by));
        return this.get(actor.businessId, caseId);
      } catch (error) {
        // A concurrent opening for the record committed first; read again, so the answer names its case as it
        // would have had that opening come a moment earlier.
        if (attempt >= RETRIES || !(error instanceof ExpectedVersionConflictError)) throw error;
      }
    }
  }

  async update(actor: CaseActor, caseId: string, update: CaseUpdate): Promise<Case> {
    const by = await this.#actors.by(actor);
    const assignedTo =
      update.assignedTo === undefined ? undefined : await this.#actors.user(actor.businessId, update.assignedTo, 'assignedTo');
    const changes = { ...update, assignedTo, dueDate: normaliseDate(update.dueDate, 'dueDate') };
    return this.#handle(actor, by, caseId, { type: 'UpdateCase', data: { caseId, by, changes } });
  }

  async addComment(
    actor: CaseActor,
    caseId: string,
    input: { text: string; attachments?: string[]; taggedUsers?: string[] },
  ): Promise<Case> {
    const by = await this.#actors.by(actor);
    const attachments = await Promise.all(
      (input.attachments ?? []).map((key, i) => this.#upload(actor.businessId, key, `attachments[${i}]`)),
    );
    const taggedUsers = await Promise.all(
      (input.taggedUsers ?? []).map((id, i) => this.#actors.user(actor.businessId, id, `taggedUsers[${i}]`)),
    );
    const commentId = newId(this.#clock.now());
    return this.#handle(actor, by, caseId, {
      type: 'AddComment',
      data: { caseId, by, commentId, text: input.text, attachments, taggedUsers },
    });
  }

  async addTask(actor: CaseActor, caseId: string, text: string): Promise<Case> {
    const by = await this.#actors.by(actor);
    return this.#handle(actor, by, caseId, { type: 'AddTask', data: { caseId, by, taskId: newId(this.#clock.now()), text } });
  }

  async setTaskStatus(actor: CaseActor, caseId: string, taskId: string, status: boolean): Promise<Case> {
    const by = await this.#actors.by(actor);
    return this.#handle(actor, by, caseId, { type: 'SetTaskStatus', data: { caseId, by, taskId, status } });
  }

  async addAttachment(actor: CaseActor, caseId: string, key: string): Promise<Case> {
    const by = await this.#actors.by(actor);
    const attachment = await this.#upload(actor.businessId, key, 'key');
    return this.#handle(actor, by, caseId, {
      type: 'AddAttachment',
      data: { caseId, by, attachmentId: newId(this.#clock.now()), attachment },
    });
  }

  /** Closes the case with a disposition; whether that needs a second person first is the approvals policy's to say. */
  async closeWithDisposition(actor: CaseActor, caseId: string, disposition: string, note?: string): Promise<Case> {
    const by = await this.#actors.by(actor);
    return this.#handle(actor, by, caseId, closeCommand(this.#clock, by, disposition, note)(caseId));
  }

  /** One action over many cases (bulk.ts), each case its own command; a case it cannot apply to is reported and the others go on. */
  bulk(actor: CaseActor, selection: BulkSelection, action: BulkAction): Promise<BulkResult[]> {
    return this.#bulk.run(actor, selection, action);
  }

  /** The cases a bulk selection names (at most BULK_LIMIT), for an action made case by case elsewhere. */
  selected(businessId: string, selection: BulkSelection): Promise<string[]> {
    return this.#bulk.selected(businessId, selection);
  }

  async decideClosure(actor: CaseActor, caseId: string, approve: boolean): Promise<Case> {
    const by = await this.#actors.by(actor);
    return this.#handle(actor, by, caseId, { type: 'DecideClosure', data: { caseId, by, approve } });
  }

  /** The closure facts the Case resource does not carry: a closure pending under the old `fourEyes`, and the final disposition. */
  async closure(businessId: string, caseId: string): Promise<Pick<CaseState, 'pendingClosure' | 'disposition' | 'status'>> {
    const state = fold(caseDecider, await this.#store.readStream(caseStream(businessId, caseId)));
    if (!state.exists) throw new NotFoundError('Case not found');
    return { pendingClosure: state.pendingClosure, disposition: state.disposition, status: state.status };
  }

  settings(businessId: string): Promise<CaseSettings> {
    return this.#settings.get(businessId);
  }

  /** Changes some of the business's case settings (alert grouping, due hours); an unchanged setting logs nothing. */
  async changeSettings(actor: CaseActor, changes: CaseSettingsChanges): Promise<CaseSettings> {
    const by = await this.#actors.by(actor);
    return this.#settings.change(actor.businessId, changes, caseMetadata(actor, by));
  }

  async get(businessId: string, caseId: string): Promise<Case> {
    const found = await this.read.find(businessId, caseId);
    if (!found) throw new NotFoundError('Case not found');
    return found;
  }

  /** The log position of the event behind one entry of a case's activity log (an entry's id is its event's id). */
  async logEntryPosition(businessId: string, caseId: string, logId: string): Promise<number> {
    await this.get(businessId, caseId);
    const event = (await this.#store.readStream(caseStream(businessId, caseId))).find((e) => e.eventId === logId);
    if (!event) throw new NotFoundError(`Case ${caseId} has no log entry ${logId}`);
    return event.position;
  }

  /** Overdue is a reading of the clock, not a stored fact (due.ts). */
  async list(
    businessId: string,
    filters: CaseFilters,
    page: { page: number; limit: number },
    sort?: CaseSort,
  ): Promise<{ cases: ListedCase[]; total: number }> {
    const { dueHours } = await this.settings(businessId);
    const { cases, total } = await this.read.list(businessId, filters, page, sort, dueHours);
    const now = this.#clock.now().toISOString();
    return { cases: cases.map((c) => ({ ...c, dueAt: dueAt(c, dueHours), isOverdue: isOverdue(c, dueHours, now) })), total };
  }

  /** "Next case" (next-case.ts): the actor takes the first waiting case by priority and due time; its id, if any was left. */
  takeNext(actor: CaseActor): Promise<string | undefined> {
    return takeNextCase({ store: this.#store, read: this.read, actors: this.#actors, settings: this.#settings }, actor);
  }

  async #handle(actor: CaseActor, by: UserRef, caseId: string, command: CaseCommand): Promise<Case> {
    await handleCommand(this.#store, caseStream(actor.businessId, caseId), caseDecider, command, caseMetadata(actor, by));
    return this.get(actor.businessId, caseId);
  }

  async #upload(businessId: string, key: string, field: string): Promise<AttachmentRef> {
    const found = await this.#attachment(businessId, key);
    if (!found) throw new ValidationError(`${field}: upload ${key} was never uploaded`, field);
    return found;
  }
}
