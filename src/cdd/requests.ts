import type { Kysely } from 'kysely';
import { keyActorName } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { ExpectedVersionConflictError, type EventStore, type StoredOf, type StreamWrite } from '../store/index.js';
import { actorIdOf, metadataOf, type CddActor, type CustomerService } from './customers.js';
import { requestStream, scheduleStream, type RequestEvent, type ScheduleEvent } from './events.js';
import { customerName } from './names.js';
import type { RequestFinisher } from './request-finish.js';
import type { CddRequestsTable, CddRequestTables, Decisions, MatchReview } from './request-projection.js';
import {
  MATCH_KINDS,
  type AdverseMediaHit,
  type Confirmation,
  type MatchKind,
  type OverallRiskLevel,
  type RequestMatches,
  type ScreeningMatch,
  type WorkflowRef,
} from './types.js';
import { workflowPlan, workflowRef, type Workflow } from './workflows.js';
import { readPage } from '../projections/index.js';

const DAY_MS = 86_400_000;

export interface CddRequestItem {
  _id: string;
  type: string;
  workflow: WorkflowRef;
  name: string;
  status: string;
  createdAt: string;
  overallRiskLevel?: OverallRiskLevel;
}

export interface Review {
  type: MatchKind;
  status: 'found' | 'not found';
  index: number;
  /** Why; required to correct an earlier review. */
  note?: string;
}

const toItem = (r: CddRequestsTable): CddRequestItem => ({
  _id: r.request_id,
  type: r.type,
  workflow: JSON.parse(r.workflow) as WorkflowRef,
  name: r.name,
  status: r.status,
  createdAt: r.created_at,
  ...(r.overall_risk_level ? { overallRiskLevel: JSON.parse(r.overall_risk_level) as OverallRiskLevel } : {}),
});

const matchList = (m: RequestMatches, kind: MatchKind): (ScreeningMatch | AdverseMediaHit)[] =>
  kind === 'adverseMedia' ? (m.adverseMedia ?? []) : m[kind];
const reviewOf = (review: MatchReview | undefined) =>
  typeof review === 'string' ? { status: review, by: null, at: null, byName: null, note: null, history: [] } : review;

/**
 * A match as a reviewer reads it: its decision, who made it (id and name) and when, why, when it was confirmed if
 * found, and the history of reviews that led there.
 */
const withReview = <T>(match: T, given: MatchReview | undefined) => {
  const review = reviewOf(given);
  const at = review?.at ?? null;
  return {
    ...match,
    reviewStatus: review?.status ?? 'pending',
    reviewedBy: review?.by ?? null,
    reviewedByName: review?.byName ?? null,
    reviewDate: at,
    reviewNote: review?.note ?? null,
    confirmedAt: review?.status === 'found' ? at : null,
    reviewHistory: review?.history ?? [],
  };
};

/** A match with its review, as `matches` returns each one. */
export type ReviewedMatch<T = ScreeningMatch | AdverseMediaHit> = ReturnType<typeof withReview<T>>;

const undecided = (m: RequestMatches, d: Decisions) => MATCH_KINDS.some((k) => matchList(m, k).some((_, i) => !d[k]?.[String(i)]));
/** CDD requests: starting one, reading them and reviewing their matches (each review ends in RequestFinisher). */
export class RequestService {
  readonly #db: Kysely<CddRequestTables>;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly workflows: ReadonlyMap<string, Workflow>,
    private readonly customers: CustomerService,
    private readonly finisher: RequestFinisher,
  ) {
    this.#db = db;
  }

  workflow(slug: string): Workflow {
    const workflow = this.workflows.get(slug);
    if (!workflow) throw new NotFoundError(`Workflow ${slug} not found`);
    return workflow;
  }

  /** Queues the request (the worker runs it); the first run of a monitored workflow also schedules re-runs. */
  async start(actor: CddActor, input: { customerUniqueId: string; workflowSlug: string }, executionId?: string) {
    const view = await this.customers.find(actor.businessId, input.customerUniqueId);
    if (!view) throw new NotFoundError(`Customer ${input.customerUniqueId} not found`);
    const workflow = this.workflow(input.workflowSlug);
    if (workflow.customerType !== view.doc.type) {
      throw new ValidationError(
        `workflow ${workflow.slug} is for ${workflow.customerType} customers, ${input.customerUniqueId} is ${view.doc.type}`,
        'workflowSlug',
      );
    }
    const now = this.clock.now();
    const requestId = newId(now);
    const { doc } = view;
    const name = customerName(doc);
    const created: RequestEvent = {
      type: 'CddRequestCreated',
      data: {
        requestId,
        customerUniqueId: doc.uniqueId,
        type: doc.type,
        workflow: workflowRef(workflow),
        plan: workflowPlan(workflow),
        name,
        ...(executionId ? { executionId } : {}),
      },
    };
    const writes: StreamWrite[] = [{ streamId: requestStream(requestId), events: [created], expectedVersion: 'no_stream' }];
    const scheduled = scheduleStream(actor.businessId, doc.uniqueId, workflow.slug);
    if (workflow.rescreenEveryDays && !executionId && (await this.store.streamVersion(scheduled)) === 0) {
      const schedule: ScheduleEvent = {
        type: 'CddScheduleCreated',
        data: {
          executionId: newId(now),
          customerUniqueId: doc.uniqueId,
          name,
          type: doc.type,
          workflowSlug: workflow.slug,
          workflowName: workflow.name,
          everyDays: workflow.rescreenEveryDays,
          nextRunAt: new Date(now.getTime() + workflow.rescreenEveryDays * DAY_MS).toISOString(),
          requestId,
        },
      };
      writes.push({ streamId: scheduled, events: [schedule], expectedVersion: 'no_stream' });
    }
    try {
      await this.store.appendMany(writes, metadataOf(actor));
    } catch (error) {
      // Another request created the schedule meanwhile: this one only queues.
      if (!(error instanceof ExpectedVersionConflictError) || writes.length === 1) throw error;
      await this.store.appendMany(writes.slice(0, 1), metadataOf(actor));
    }
    return { requestId, status: 'not started' as const, type: doc.type };
  }

  async list(businessId: string, customerUniqueId: string, paging: { page: number; limit: number }) {
    const view = await this.customers.get(businessId, customerUniqueId);
    const base = this.#db
      .selectFrom('cdd_requests')
      .where('business_id', '=', businessId)
      .where('customer_unique_id', '=', view.doc.uniqueId);
    const { rows, total: found } = await readPage(
      base.selectAll().orderBy('created_at', 'desc').orderBy('request_id', 'desc'),
      base,
      paging,
    );
    return { count: found, pageNumber: paging.page, data: rows.map(toItem) };
  }

  async get(businessId: string, requestId: string): Promise<CddRequestsTable> {
    const row = await this.#db
      .selectFrom('cdd_requests')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('CDD request not found');
    return row;
  }

  /** The matches, each with its review status; `keys` picks which of pep, sanctions, adverseMedia to return. */
  async matches(businessId: string, requestId: string, keys: readonly MatchKind[] = MATCH_KINDS) {
    const row = await this.get(businessId, requestId);
    const matches = JSON.parse(row.matches) as RequestMatches;
    const decisions = JSON.parse(row.decisions) as Decisions;
    const decided = <T>(kind: MatchKind, list: T[]) => list.map((m, i) => withReview(m, decisions[kind]?.[String(i)]));
    const data: Record<string, unknown> = { _id: row.request_id, type: row.type };
    for (const kind of MATCH_KINDS) {
      if (!keys.includes(kind)) continue;
      data[kind] = kind === 'adverseMedia' ? matches.adverseMedia && decided(kind, matches.adverseMedia) : decided(kind, matches[kind]);
    }
    return data;
  }

  /** The log positions of every review of one match, oldest first: what its proofs are made from. */
  async reviewPositions(businessId: string, requestId: string, kind: MatchKind, index: number): Promise<number[]> {
    await this.get(businessId, requestId);
    const events = (await this.store.readStream(requestStream(requestId))) as StoredOf<RequestEvent>[];
    return events.filter((e) => e.type === 'CddMatchReviewed' && e.data.kind === kind && e.data.index === index).map((e) => e.position);
  }

  /**
   * A reviewer's decision on one match. `found` confirms it on the customer (or the person it was found for),
   * reassesses risk and opens a case; the last decision completes the request. All of it in one append.
   */
  async review(actor: CddActor, requestId: string, review: Review) {
    for (let attempt = 0; ; attempt++) {
      const stream = requestStream(requestId);
      const version = await this.store.streamVersion(stream);
      const row = await this.get(actor.businessId, requestId);
      if (row.status === 'not started' || row.status === 'in progress') throw new ConflictError('the request is still running its checks');
      const matches = JSON.parse(row.matches) as RequestMatches;
      const decisions = JSON.parse(row.decisions) as Decisions;
      const list = matchList(matches, review.type);
      const match = list[review.index];
      if (!match) {
        throw new ValidationError(
          `index ${review.index} is out of range: the request has ${list.length} ${review.type} match(es)`,
          'index',
        );
      }
      const previous = reviewOf(decisions[review.type]?.[String(review.index)]);
      const note = review.note?.trim() || null;
      if (previous?.status === review.status) {
        throw new ConflictError(
          `${review.type} match ${review.index} was already reviewed as ${previous.status}; to correct it, send the other status with a note`,
        );
      }
      if (previous && !note) {
        throw new ValidationError(
          `note is required to correct a review: say why ${review.type} match ${review.index} is now ${review.status}`,
          'note',
        );
      }
      const now = this.clock.now().toISOString();
      const reviewed: RequestEvent = {
        type: 'CddMatchReviewed',
        data: {
          requestId,
          kind: review.type,
          index: review.index,
          status: review.status,
          reviewedBy: actorIdOf(actor),
          reviewerName: !actor.userId && actor.keyName ? keyActorName(actor.keyName) : null,
          reviewedAt: now,
          note,
          previousStatus: previous?.status ?? null,
        },
      };
      const after: Decisions = { ...decisions, [review.type]: { ...decisions[review.type], [String(review.index)]: review.status } };
      const completes = row.status === 'awaiting confirmation' && !undecided(matches, after);
      const confirmation =
        review.status === 'found'
          ? {
              kind: review.type,
              subject: match.subject,
              confirmation: { id: match._id, confirmedAt: now, requestId, record: stripSubject(match) as Confirmation['record'] },
            }
          : undefined;
      const withdrawal =
        previous?.status === 'found' ? { kind: review.type, subject: match.subject, confirmationId: match._id } : undefined;
      try {
        await this.finisher.finish({
          metadata: metadataOf(actor),
          requestId,
          customerUniqueId: row.customer_unique_id,
          requestVersion: version,
          requestEvents: [reviewed],
          confirm: confirmation,
          withdraw: withdrawal,
          actor,
          complete: completes,
        });
        return { _id: requestId, type: row.type };
      } catch (error) {
        if (attempt >= 3 || !(error instanceof ExpectedVersionConflictError)) throw error;
      }
    }
  }
}

function stripSubject<T extends { subject: unknown }>(match: T): Omit<T, 'subject'> {
  const { subject: _subject, ...record } = match;
  return record;
}
