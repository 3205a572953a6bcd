// Runs CDD requests in the background. The log is the queue: a request with Created but no Completed or
// AwaitingConfirmation is pending. A node runs a request under its claim (`requestClaim`), so no other node runs it
// meanwhile, and takes it over when the node dies (its claim goes with its connection). The run appends Started at
// the version it read and each check at the next version, so two runs (should claims ever overlap) can never both
// record one; a run that crashed is resumed by the next one, which skips the checks already recorded.
import type { Kysely } from 'kysely';
import type { Logger } from '../logger.js';
import { ExpectedVersionConflictError, type EventMetadata, type EventStore, type StoredEvent } from '../store/index.js';
import { planChecks, runCheck, stepKey, type CheckDeps } from './checks/index.js';
import type { CustomerService } from './customers.js';
import { requestStream, type RequestEvent } from './events.js';
import type { CddRequestTables } from './request-projection.js';
import type { RequestFinisher } from './request-finish.js';

type Created = Extract<RequestEvent, { type: 'CddRequestCreated' }>['data'];
type Recorded = Extract<RequestEvent, { type: 'CddCheckRecorded' }>['data'];

const FINAL = new Set(['CddRequestCompleted', 'CddRequestAwaitingConfirmation']);

/** The claim a node holds while it runs a request. */
export const requestClaim = (requestId: string): string => `cdd-request:${requestId}`;

export class RequestWorker {
  readonly #db: Kysely<CddRequestTables>;
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly logger: Logger,
    private readonly checks: CheckDeps,
    private readonly customers: CustomerService,
    private readonly finisher: RequestFinisher,
  ) {
    this.#db = db;
  }

  /** Runs every pending request once, one at a time; resolves with how many this call ran to an end. */
  runPending(): Promise<number> {
    const run = this.#chain.then(async () => {
      const pending = await this.#db
        .selectFrom('cdd_requests')
        .select('request_id')
        .where('status', 'in', ['not started', 'in progress'])
        .orderBy('created_at')
        .orderBy('request_id')
        .execute();
      let finished = 0;
      for (const { request_id } of pending) {
        if (this.#closed) break;
        try {
          if (await this.run(request_id)) finished += 1;
        } catch (err) {
          this.logger.error({ err, requestId: request_id }, 'cdd request failed; it stays pending and is retried');
        }
      }
      return finished;
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Stops taking work; resolves once the run in progress (if any) has ended. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#chain;
  }

  /** Runs one request from where its log says it is; false when it was finished or another run holds it. */
  async run(requestId: string): Promise<boolean> {
    const claimed = await this.store.exclusive(requestClaim(requestId), () => this.#run(requestId));
    return claimed?.value ?? false;
  }

  async #run(requestId: string): Promise<boolean> {
    const stream = requestStream(requestId);
    const history = await this.store.readStream(stream);
    const first = history[0] as StoredEvent<'CddRequestCreated', Created> | undefined;
    if (first?.type !== 'CddRequestCreated' || history.some((e) => FINAL.has(e.type))) return false;
    const created = first.data;
    const metadata: EventMetadata = { businessId: first.metadata.businessId, actor: 'cdd-worker', correlationId: requestId };
    const attempt = history.filter((e) => e.type === 'CddRequestStarted').length + 1;
    let version = history.length;
    try {
      await this.store.append(stream, [{ type: 'CddRequestStarted', data: { requestId, attempt } }], {
        expectedVersion: version,
        metadata,
      });
      version += 1;
      const recorded = history.filter((e) => e.type === 'CddCheckRecorded').map((e) => e.data as Recorded);
      const done = new Set(recorded.map((r) => stepKey(r.subject, r.check.checkId)));
      let matched = recorded.some((r) => hasMatches(r.matches));
      const view = await this.customers.get(metadata.businessId, created.customerUniqueId);
      for (const step of planChecks(view.doc, created.plan)) {
        if (this.#closed) return false;
        if (done.has(stepKey(step.facts.subject, step.checkId))) continue;
        const outcome = await runCheck(this.checks, step, created.plan);
        const data: Recorded = { requestId, customerUniqueId: created.customerUniqueId, subject: step.facts.subject, check: outcome.check };
        if (hasMatches(outcome.matches) || outcome.matches.adverseMedia) data.matches = outcome.matches;
        await this.store.append(stream, [{ type: 'CddCheckRecorded', data }], { expectedVersion: version, metadata });
        version += 1;
        done.add(stepKey(step.facts.subject, step.checkId));
        matched ||= hasMatches(outcome.matches);
      }
      if (matched) {
        await this.store.append(stream, [{ type: 'CddRequestAwaitingConfirmation', data: { requestId } }], {
          expectedVersion: version,
          metadata,
        });
      } else {
        await this.finisher.finish({
          metadata,
          requestId,
          customerUniqueId: created.customerUniqueId,
          requestVersion: version,
          requestEvents: [],
          complete: true,
        });
      }
      return true;
    } catch (error) {
      if (error instanceof ExpectedVersionConflictError && error.streamId === stream) {
        this.logger.info({ requestId }, 'cdd request taken over by another worker');
        return false;
      }
      throw error;
    }
  }
}

function hasMatches(m: Recorded['matches']): boolean {
  return !!m && ((m.pep?.length ?? 0) > 0 || (m.sanctions?.length ?? 0) > 0 || (m.adverseMedia?.length ?? 0) > 0);
}
