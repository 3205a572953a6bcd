// Ongoing monitoring: each (customer, monitored workflow) pair has a schedule whose next run time lives in the
// log. A node fires a due schedule under the schedule's claim, appending Fired at the version it read together
// with the new request, so a schedule fires once per due time however many nodes look, and a restart loses nothing.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { newId } from '../ids.js';
import { ExpectedVersionConflictError, type EventStore } from '../store/index.js';
import { scheduleStream, requestStream, type RequestEvent, type ScheduleEvent } from './events.js';
import { customerName } from './names.js';
import type { CddRequestTables, CddSchedulesTable } from './request-projection.js';
import type { CustomerService } from './customers.js';
import { workflowPlan, workflowRef, type Workflow } from './workflows.js';
import { readPage } from '../projections/index.js';

const DAY_MS = 86_400_000;

export interface ScheduledWorkflow {
  executionId: string;
  name: string;
  type: string;
  status: string;
  workflowName: string;
  createdAt: string;
  customerUniqueId: string;
  workflowSlug: string;
  nextRunAt: string;
  lastRequestId: string | null;
}

const toItem = (r: CddSchedulesTable): ScheduledWorkflow => ({
  executionId: r.execution_id,
  name: r.name,
  type: r.type,
  status: r.status,
  workflowName: r.workflow_name,
  createdAt: r.created_at,
  customerUniqueId: r.customer_unique_id,
  workflowSlug: r.workflow_slug,
  nextRunAt: r.next_run_at,
  lastRequestId: r.last_request_id,
});

export class Scheduler {
  readonly #db: Kysely<CddRequestTables>;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly workflows: ReadonlyMap<string, Workflow>,
    private readonly customers: CustomerService,
  ) {
    this.#db = db;
  }

  async list(businessId: string, paging: { page: number; limit: number }) {
    const base = this.#db.selectFrom('cdd_schedules').where('business_id', '=', businessId);
    const { rows, total: found } = await readPage(base.selectAll().orderBy('created_at', 'desc').orderBy('execution_id'), base, paging);
    return { data: rows.map(toItem), count: rows.length, pageNumber: paging.page, totalCount: found };
  }

  /** Fires every schedule due at the clock's now; resolves with the ids of the requests it queued. */
  async runDue(): Promise<string[]> {
    const now = this.clock.now();
    const due = await this.#db
      .selectFrom('cdd_schedules')
      .selectAll()
      .where('next_run_at', '<=', now.toISOString())
      .orderBy('next_run_at')
      .execute();
    const queued: string[] = [];
    for (const row of due) {
      const requestId = await this.#fire(row, now).catch((err: unknown) => {
        this.logger.error({ err, executionId: row.execution_id }, 'scheduled cdd run failed to start; retried at the next tick');
        return undefined;
      });
      if (requestId) queued.push(requestId);
    }
    return queued;
  }

  async #fire(row: CddSchedulesTable, now: Date): Promise<string | undefined> {
    const stream = scheduleStream(row.business_id, row.customer_unique_id, row.workflow_slug);
    const claimed = await this.store.exclusive(`cdd-schedule:${stream}`, () => this.#fireClaimed(row, stream, now));
    return claimed?.value;
  }

  async #fireClaimed(row: CddSchedulesTable, stream: string, now: Date): Promise<string | undefined> {
    // The log, not the read model, says whether it is still due: another process may have just fired it.
    const history = await this.store.readStream(stream);
    const version = history.length;
    const last = history[version - 1]?.data as ScheduleEvent['data'] | undefined;
    if (!last || last.nextRunAt > now.toISOString()) return undefined;
    const workflow = this.workflows.get(row.workflow_slug);
    const view = await this.customers.find(row.business_id, row.customer_unique_id, { byAccount: false });
    if (!workflow || !view) {
      this.logger.warn(
        { executionId: row.execution_id, workflow: row.workflow_slug },
        'schedule skipped: its workflow or customer is gone',
      );
      return undefined;
    }
    const requestId = newId(now);
    const fired: ScheduleEvent = {
      type: 'CddScheduleFired',
      data: {
        executionId: row.execution_id,
        requestId,
        firedAt: now.toISOString(),
        nextRunAt: new Date(now.getTime() + row.every_days * DAY_MS).toISOString(),
      },
    };
    const created: RequestEvent = {
      type: 'CddRequestCreated',
      data: {
        requestId,
        customerUniqueId: view.doc.uniqueId,
        type: view.doc.type,
        workflow: workflowRef(workflow),
        plan: workflowPlan(workflow),
        name: customerName(view.doc),
        executionId: row.execution_id,
      },
    };
    try {
      await this.store.appendMany(
        [
          { streamId: stream, events: [fired], expectedVersion: version },
          { streamId: requestStream(requestId), events: [created], expectedVersion: 'no_stream' },
        ],
        { businessId: row.business_id, actor: 'cdd-scheduler', correlationId: row.execution_id },
      );
      return requestId;
    } catch (error) {
      if (error instanceof ExpectedVersionConflictError) return undefined;
      throw error;
    }
  }
}
