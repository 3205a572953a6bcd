import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { ExpectedVersionConflictError, fold, handleCommand, type EventMetadata, type EventStore } from '../store/index.js';
import { validationErrorFrom } from '../validation-messages.js';
import { type ReportCommand, reportDecider, type ReportState } from './decider.js';
import {
  type Draft,
  type ReportEvent,
  type ReportingSettings,
  type ReportingSettingsEvent,
  reportingSettingsStream,
  reportStream,
  type ReportSubject,
  type ReportSubjectEvent,
  reportSubjectStream,
} from './events.js';
import { type Fiu, fiuOf, loadFius } from './fiu.js';
import type { ReportedTransaction, ReportPorts } from './ports.js';
import { actorName, type ReportActor } from './actor.js';
import { ReportDrafts, type Previous } from './drafts.js';
import { type ReportFilters, ReportReadModel, type ReportSummary } from './read-model.js';
import { type SchemaProblem, schemaForFiu, shippedSchema, validateAgainst } from './schema.js';
import { ReportingSettingsSchema } from './settings.js';
import type { Parties } from './transactions.js';
import { serialize } from './xml.js';

/** A report as the API shows it: its summary, what it lacks, and the reason it was rejected. */
export type ReportView = ReportSummary & {
  transactionIds: string[];
  missing: Draft['missing'];
  approvedBy: string | null;
  submittedVia: 'download' | 'sent' | null;
  rejectionReason: string | null;
};

/**
 * The case's disposition that makes it reportable. Case management names it `reported`; older cases (and the
 * code until cases are grouped by subject) say `reported to FIU`.
 */
export const isReportedDisposition = (disposition: string | null): boolean =>
  disposition === 'reported' || disposition === 'reported to FIU';

/** goAML reports: STRs from cases closed as reported, daily threshold batches, and their way to the FIU. */
export class ReportService {
  readonly read: ReportReadModel;
  readonly fius: ReadonlyMap<string, Fiu>;
  readonly #store: EventStore;
  readonly #clock: Clock;
  readonly #ports: ReportPorts;
  readonly #drafts: ReportDrafts;

  constructor(db: Kysely<any>, store: EventStore, clock: Clock, ports: ReportPorts, fius: ReadonlyMap<string, Fiu> = loadFius()) {
    this.read = new ReportReadModel(db);
    this.#store = store;
    this.#clock = clock;
    this.#ports = ports;
    this.fius = fius;
    this.#drafts = new ReportDrafts({ db, store, clock, ports, fius, settings: (businessId) => this.#settingsOrRefuse(businessId) });
  }

  async settings(businessId: string): Promise<ReportingSettings | undefined> {
    const events = await this.#store.readStream(reportingSettingsStream(businessId));
    return (events.at(-1) as unknown as ReportingSettingsEvent | undefined)?.data;
  }

  async configure(actor: ReportActor, input: unknown): Promise<ReportingSettings> {
    const parsed = ReportingSettingsSchema.safeParse(input);
    if (!parsed.success) throw validationErrorFrom(parsed.error, input);
    fiuOf(this.fius, parsed.data.fiu);
    const event: ReportingSettingsEvent = { type: 'ReportingConfigured', data: parsed.data };
    await this.#store.append(reportingSettingsStream(actor.businessId), [event], {
      expectedVersion: 'any',
      metadata: this.#metadata(actor),
    });
    return parsed.data;
  }

  /** An STR from a case closed as reported; `correctionOf` makes it the corrected resubmission of a rejected report. */
  async draftStr(actor: ReportActor, input: { caseId: string; action?: string; correctionOf?: string }): Promise<ReportView> {
    const { businessId } = actor;
    const closure = await this.#ports.cases.closure(businessId, input.caseId);
    if (closure.status !== 'closed' || !isReportedDisposition(closure.disposition)) {
      throw new ConflictError(
        `Case ${input.caseId} is ${closure.status}${closure.disposition ? ` (${closure.disposition})` : ''}: only a case closed as reported is reported`,
      );
    }
    const of = { caseId: input.caseId };
    const subject = await this.#subject(businessId, of);
    const previous = await this.#correcting(businessId, input.correctionOf, of, subject.standing);
    const draft = await this.#drafts.str(actor, newId(this.#clock.now()), input.caseId, input.action ?? null, previous);
    return this.#recordDraft(actor, draft, of, subject.version);
  }

  /** The day's threshold report: every transaction of `date` (the business's day) at or above its customer type's threshold. */
  async draftThreshold(actor: ReportActor, input: { date: string; correctionOf?: string }): Promise<ReportView> {
    const of = { date: input.date };
    const subject = await this.#subject(actor.businessId, of);
    const previous = await this.#correcting(actor.businessId, input.correctionOf, of, subject.standing);
    const draft = await this.#drafts.threshold(actor, newId(this.#clock.now()), input.date, previous);
    return this.#recordDraft(actor, draft, of, subject.version);
  }

  /** Builds a draft again from the records as they are now: after the missing data was filled in. */
  async redraft(actor: ReportActor, reportId: string): Promise<ReportView> {
    const { draft } = await this.#state(actor.businessId, reportId);
    const previous = draft.correctionOf ? await this.#rejected(actor.businessId, draft.correctionOf) : null;
    const fresh =
      draft.kind === 'str'
        ? await this.#drafts.str(actor, reportId, draft.caseId!, this.#actionOf(draft), previous)
        : await this.#drafts.threshold(actor, reportId, draft.date!, previous);
    return this.#handle(actor, reportId, { type: 'Redraft', data: { ...fresh, version: draft.version, correctionOf: draft.correctionOf } });
  }

  /** Approval needs every mandatory field and a document the FIU's schema accepts; under four eyes, a second person. */
  async approve(actor: ReportActor, reportId: string): Promise<ReportView> {
    const state = await this.#state(actor.businessId, reportId);
    if (state.status === 'draft' && state.draft.missing.length === 0) await this.#schemaValid(state.draft);
    const fourEyes = await this.#ports.policy.reportApprovalTakesSecondPerson(actor.businessId);
    return this.#handle(actor, reportId, { type: 'ApproveReport', data: { reportId, by: actorName(actor), fourEyes } });
  }

  async submit(actor: ReportActor, reportId: string, via: 'download' | 'sent'): Promise<ReportView> {
    return this.#handle(actor, reportId, { type: 'SubmitReport', data: { reportId, by: actorName(actor), via } });
  }

  async acknowledge(actor: ReportActor, reportId: string, fiuReference: string): Promise<ReportView> {
    return this.#handle(actor, reportId, { type: 'AcknowledgeReport', data: { reportId, by: actorName(actor), fiuReference } });
  }

  async reject(actor: ReportActor, reportId: string, reason: string, fiuReference: string | null): Promise<ReportView> {
    return this.#handle(actor, reportId, { type: 'RejectReport', data: { reportId, by: actorName(actor), reason, fiuReference } });
  }

  async get(businessId: string, reportId: string): Promise<ReportView> {
    const [summary, state] = await Promise.all([this.read.find(businessId, reportId), this.#state(businessId, reportId)]);
    if (!summary) throw new NotFoundError('Report not found');
    return {
      ...summary,
      transactionIds: state.draft.transactionIds,
      missing: state.draft.missing,
      approvedBy: state.approvedBy,
      submittedVia: state.submitted?.via ?? null,
      rejectionReason: state.rejection,
    };
  }

  list(businessId: string, filters: ReportFilters, page: { page: number; limit: number }) {
    return this.read.list(businessId, filters, page);
  }

  /** The goAML XML, once it has every mandatory field and the FIU's schema accepts it. */
  async xml(businessId: string, reportId: string): Promise<string> {
    const { draft } = await this.#state(businessId, reportId);
    if (draft.missing.length > 0) {
      throw new ValidationError(
        `The report lacks mandatory data: ${draft.missing.map((m) => `${m.field} (${m.message})`).join('; ')}`,
        draft.missing[0]!.field,
      );
    }
    await this.#schemaValid(draft);
    return serialize(draft.document);
  }

  /** What libxml2 says of a report against its FIU's schema (the shipped structure with the FIU's code lists). */
  async schemaProblems(businessId: string, reportId: string): Promise<SchemaProblem[]> {
    const { draft } = await this.#state(businessId, reportId);
    return validateAgainst(serialize(draft.document), schemaForFiu(shippedSchema(), fiuOf(this.fius, draft.fiu)));
  }

  /** The transactions a threshold report of `date` carries, in log order. */
  thresholdTransactions(businessId: string, date: string): Promise<{ tx: ReportedTransaction; parties: Parties }[]> {
    return this.#drafts.thresholdTransactions(businessId, date);
  }

  /** The action text a draft carries, kept when it is built again. */
  #actionOf(draft: Draft): string | null {
    if (!('children' in draft.document)) return null;
    const action = draft.document.children.find((c) => c.name === 'action');
    return action && 'text' in action ? action.text : null;
  }

  /** The rejected report a new one corrects (same case or day), if any; the case or day must have no report that still stands. */
  async #correcting(
    businessId: string,
    correctionOf: string | undefined,
    of: ReportSubject,
    standing: string | undefined,
  ): Promise<Previous | null> {
    if (standing) throw alreadyReported(standing, of);
    if (correctionOf === undefined) return null;
    const state = await this.#state(businessId, correctionOf);
    const same = 'caseId' in of ? state.draft.caseId === of.caseId : state.draft.date === of.date;
    if (!same)
      throw new ValidationError(
        `correctionOf: report ${correctionOf} is not a report of this ${'caseId' in of ? 'case' : 'day'}`,
        'correctionOf',
      );
    return this.#rejected(businessId, correctionOf);
  }

  /**
   * The subject's stream: its version, and the report that stands for it (the last one claimed, unless rejected).
   * A subject with no claim yet may still have a report drafted before subjects were claimed: the read model knows it.
   */
  async #subject(businessId: string, of: ReportSubject): Promise<{ version: number; standing: string | undefined }> {
    const claims = (await this.#store.readStream(reportSubjectStream(businessId, of))) as unknown as ReportSubjectEvent[];
    const last = claims.at(-1)?.data.reportId;
    if (last === undefined) return { version: 0, standing: await this.read.standing(businessId, of) };
    const state = await this.#state(businessId, last);
    return { version: claims.length, standing: state.status === 'rejected' ? undefined : last };
  }

  /** Records a new report and its claim on the subject together, at the subject's version read: a concurrent draft conflicts. */
  async #recordDraft(actor: ReportActor, draft: Draft, of: ReportSubject, subjectVersion: number): Promise<ReportView> {
    const claim: ReportSubjectEvent = { type: 'ReportSubjectClaimed', data: { reportId: draft.reportId } };
    try {
      await this.#store.appendMany(
        [
          {
            streamId: reportSubjectStream(actor.businessId, of),
            events: [claim],
            expectedVersion: subjectVersion === 0 ? 'no_stream' : subjectVersion,
          },
          {
            streamId: reportStream(actor.businessId, draft.reportId),
            events: reportDecider.decide({ type: 'DraftReport', data: draft }, reportDecider.initialState()),
            expectedVersion: 'no_stream',
          },
        ],
        this.#metadata(actor),
      );
    } catch (error) {
      if (!(error instanceof ExpectedVersionConflictError)) throw error;
      const { standing } = await this.#subject(actor.businessId, of);
      throw standing ? alreadyReported(standing, of) : new ConflictError('Another report of this subject was drafted meanwhile: try again');
    }
    return this.get(actor.businessId, draft.reportId);
  }

  async #rejected(businessId: string, reportId: string): Promise<Previous> {
    const state = await this.#state(businessId, reportId);
    if (state.status !== 'rejected') throw new ConflictError(`Report ${reportId} is ${state.status}: only a rejected report is corrected`);
    return { reportId, version: state.draft.version, fiuReference: state.fiuReference };
  }

  async #schemaValid(draft: Draft): Promise<void> {
    const problems = await validateAgainst(serialize(draft.document), schemaForFiu(shippedSchema(), fiuOf(this.fius, draft.fiu)));
    if (problems.length > 0) {
      throw new ValidationError(
        `The report does not validate against the goAML schema: ${problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`,
        'report',
      );
    }
  }

  async #settingsOrRefuse(businessId: string): Promise<ReportingSettings> {
    const settings = await this.settings(businessId);
    if (!settings)
      throw new ConflictError('Reporting is not configured for this business: set its goAML settings first (PUT /api/v1/reports/settings)');
    return settings;
  }

  async #state(businessId: string, reportId: string): Promise<ReportState & { draft: Draft }> {
    const state = fold(reportDecider, await this.#store.readStream(reportStream(businessId, reportId)));
    if (state.draft === null) throw new NotFoundError('Report not found');
    return state as ReportState & { draft: Draft };
  }

  async #handle(actor: ReportActor, reportId: string, command: ReportCommand): Promise<ReportView> {
    await handleCommand<ReportState, ReportCommand, ReportEvent>(
      this.#store,
      reportStream(actor.businessId, reportId),
      reportDecider,
      command,
      this.#metadata(actor),
    );
    return this.get(actor.businessId, reportId);
  }

  #metadata(actor: ReportActor): EventMetadata {
    return { businessId: actor.businessId, actor: actorName(actor), ...(actor.requestId ? { requestId: actor.requestId } : {}) };
  }
}

const alreadyReported = (standing: string, of: ReportSubject) =>
  new ConflictError(`Report ${standing} already reports this ${'caseId' in of ? 'case' : 'day'}: correct it once rejected (correctionOf)`);
