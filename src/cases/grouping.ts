import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { EventStore, StreamWrite } from '../store/index.js';
import type { UserRef } from '../users/index.js';
import { SubjectIndex, subjectOf, type AlertSubjects, type CaseAlert, type KnownCase } from './alerts.js';
import { isActive } from './decider.js';
import { caseStream, caseSubjectStream, type CaseEvent, type CaseSubjectEvent } from './events.js';
import type { CaseReadModel } from './read-model.js';
import type { CaseSettingsStore } from './settings.js';

const HOUR_MS = 3_600_000;
/** Reads of a subject's case that another failed write overtakes before the alert goes on with what it knows. */
const STALE_READS = 3;

export interface AlertInput {
  businessId: string;
  /** Who the decision is about; the business's grouping picks the subject. */
  subjects: AlertSubjects;
  alert: CaseAlert;
  /** The description of the case, should the alert open one (its title names the subject). */
  description: string;
  /**
   * First attempt: trust what this process knows of the subject, reading nothing. After a version conflict, pass
   * false: the subject's open case is read from the log.
   */
  fresh?: boolean;
}

export interface AlertWrites {
  caseId: string;
  /** The alert joined an open case rather than opening one. */
  reused: boolean;
  writes: StreamWrite[];
  /** To call when the writes were not committed: the subject's next alert then reads its case from the log. */
  failed: () => void;
}

/**
 * Puts alerts into cases: an alert joins its subject's open case, or opens one when the subject has none, or when
 * the open one is older than the business's `freshCaseAfterHours`. The subject stream's version guards the
 * opening (two racing openings cannot both commit) and the case stream's version the joining (an alert cannot
 * join a case closed meanwhile).
 */
export class AlertGrouping {
  readonly #store: EventStore;
  readonly #read: CaseReadModel;
  readonly #settings: CaseSettingsStore;
  readonly #clock: Clock;
  readonly #subjects = new SubjectIndex();

  constructor(store: EventStore, read: CaseReadModel, settings: CaseSettingsStore, clock: Clock) {
    this.#store = store;
    this.#read = read;
    this.#settings = settings;
    this.#clock = clock;
  }

  async writes(input: AlertInput, by: UserRef): Promise<AlertWrites> {
    const { businessId, alert } = input;
    const settings = await this.#settings.get(businessId);
    const subject = subjectOf(settings.groupBy, input.subjects);
    const indexKey = `${businessId}\u0000${subject.key}`;
    if (input.fresh === false) await this.#readSubject(businessId, subject.key, indexKey);
    // A failed write leaves holes in the versions reserved after it; a read that began before the next failure
    // replaces the entry (a burst that fails together reads once, then reserves in order again).
    for (let reads = 0; this.#subjects.isStale(indexKey) && reads < STALE_READS; reads++) {
      await this.#readSubject(businessId, subject.key, indexKey);
    }
    const failed = () => this.#subjects.invalidate(indexKey);
    // From here to the return nothing awaits, so the versions reserved are in the order the writes are made.
    const { open } = this.#subjects.known(indexKey);
    const at = Date.parse(alert.decidedAt);
    const maxAge = settings.freshCaseAfterHours === null ? Number.POSITIVE_INFINITY : settings.freshCaseAfterHours * HOUR_MS;
    if (open && at - open.openedAt < maxAge) {
      const expectedVersion = this.#subjects.reserveJoin(indexKey);
      const added: CaseEvent = { type: 'CaseAlertAdded', data: { caseId: open.caseId, by, alert } };
      return {
        caseId: open.caseId,
        reused: true,
        writes: [{ streamId: caseStream(businessId, open.caseId), events: [added], expectedVersion }],
        failed,
      };
    }
    const caseId = newId(this.#clock.now());
    const events: CaseEvent[] = [
      {
        type: 'CaseOpened',
        data: {
          caseId,
          by,
          module: 'transaction-monitoring',
          record: subject.record,
          title: `Alerts on ${subject.record.type} ${subject.record.name}`,
          description: input.description,
          priority: alert.priority,
          assignedTo: null,
          dueDate: null,
          tasks: [],
          subject: subject.key,
        },
      },
      { type: 'CaseAlertAdded', data: { caseId, by, alert } },
    ];
    const subjectVersion = this.#subjects.reserveOpening(indexKey, { caseId, openedAt: at, next: events.length });
    const link: CaseSubjectEvent = { type: 'CaseSubjectLinked', data: { caseId, subject: subject.key, openedAt: alert.decidedAt } };
    return {
      caseId,
      reused: false,
      writes: [
        { streamId: caseSubjectStream(businessId, subject.key), events: [link], expectedVersion: subjectVersion },
        { streamId: caseStream(businessId, caseId), events, expectedVersion: 'no_stream' },
      ],
      failed,
    };
  }

  /**
   * The subject's latest case from the log: its stream version is read before its status (the read model is written
   * in the append's transaction), so a change committed in between fails the append that relies on them.
   */
  async #readSubject(businessId: string, subject: string, indexKey: string): Promise<void> {
    const readAt = this.#subjects.startRead();
    const links = (await this.#store.readStream(caseSubjectStream(businessId, subject))) as unknown as CaseSubjectEvent[];
    const last = links.at(-1)?.data;
    let open: KnownCase | undefined;
    if (last) {
      const next = await this.#store.streamVersion(caseStream(businessId, last.caseId));
      const status = await this.#read.statusOf(businessId, last.caseId);
      if (status && isActive(status)) open = { caseId: last.caseId, openedAt: Date.parse(last.openedAt), next };
    }
    this.#subjects.learn(indexKey, readAt, links.length, open);
  }
}
