import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { RegistryProvider } from '../registry/index.js';
import type { EventStore } from '../store/index.js';
import { CustomerService } from './customers.js';
import type { CasesPort, ScreeningPort } from './ports.js';
import { RequestFinisher } from './request-finish.js';
import { RequestService } from './requests.js';
import { CustomerRiskModel } from './risk/assess.js';
import { Scheduler } from './scheduler.js';
import { RequestWorker } from './worker.js';
import { loadWorkflows, type Workflow } from './workflows.js';

export interface CddDeps {
  db: Kysely<any>;
  store: EventStore;
  clock: Clock;
  logger: Logger;
  /** Holds workflows/ and customer-risk/ (and the shared lists/). */
  rulesDir: string;
  registry: RegistryProvider;
  screening: ScreeningPort;
  cases?: CasesPort;
}

/** Customer due diligence: customers, workflows, requests run in the background, match review, monitoring. */
export class CddService {
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly workflows: ReadonlyMap<string, Workflow>,
    readonly customers: CustomerService,
    readonly requests: RequestService,
    readonly worker: RequestWorker,
    readonly scheduler: Scheduler,
    store: EventStore,
  ) {
    // New requests run as soon as they are committed, here or in another process (seen through the tail).
    this.#unsubscribe = store.subscribe((events) => {
      if (this.#timer && events.some((e) => e.type === 'CddRequestCreated')) void this.runPending();
    });
  }

  static async create(deps: CddDeps): Promise<CddService> {
    const workflows = loadWorkflows(join(deps.rulesDir, 'workflows'));
    const risk = await CustomerRiskModel.load(deps.rulesDir);
    const customers = new CustomerService(deps.db, deps.store, deps.clock, risk);
    const finisher = new RequestFinisher(deps.db, deps.store, deps.clock, customers, deps.cases);
    const requests = new RequestService(deps.db, deps.store, deps.clock, workflows, customers, finisher);
    const checks = {
      registry: deps.registry,
      screening: deps.screening,
      now: () => deps.clock.now(),
      newId: () => newId(deps.clock.now()),
    };
    const worker = new RequestWorker(deps.db, deps.store, deps.logger, checks, customers, finisher);
    const scheduler = new Scheduler(deps.db, deps.store, deps.clock, deps.logger, workflows, customers);
    return new CddService(workflows, customers, requests, worker, scheduler, deps.store);
  }

  /** Runs pending requests (the worker's queue is the log). */
  runPending(): Promise<number> {
    return this.worker.runPending();
  }

  /** Fires due schedules and runs the requests they queue. */
  async runDue(): Promise<string[]> {
    const queued = await this.scheduler.runDue();
    if (queued.length > 0) await this.runPending();
    return queued;
  }

  /** Background mode: pending requests resume now, then every tick also fires due schedules. */
  start(intervalMs: number): void {
    const tick = () => void this.runDue().then(() => this.runPending());
    this.#timer = setInterval(tick, intervalMs);
    this.#timer.unref();
    tick();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#unsubscribe();
    await this.worker.close();
  }
}
