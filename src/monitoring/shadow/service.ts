// Shadow rulesets: deploy a candidate beside the deciding ruleset, read what it would have done, stop or publish it.
// The only tie to the live decisions is a store subscription: committed events are handed to the business's
// runner (runner.ts), which evaluates them later, off the answer's path, and records only its own events.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { writeDurably } from '../../durable-file.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { compileSources, type CompiledRuleset, type Providers, RuleErrors } from '../../rules/index.js';
import type { EventStore, StoredEvent } from '../../store/index.js';
import { candidateSources } from '../backtest.js';
import type { LiveDecisions } from '../live-decisions.js';
import type { MonitoringTables } from '../projection.js';
import { type ShadowEvent, type ShadowStopReason, shadowStream } from './events.js';
import type { ShadowTables } from './projection.js';
import { type ShadowReport, shadowReport } from './report.js';
import { ShadowRunner } from './runner.js';

export interface ShadowActor {
  businessId: string;
  userId?: string;
}

export interface ShadowInput {
  /** The candidate's files by name, as a backtest takes them: NAME.rules and lists/NAME.txt. */
  files: Record<string, string>;
  /** Stops by itself after this many hours (default 24, at most 14 days). */
  hours?: number;
  /** …or after evaluating this many decisions (default 1,000,000). */
  maxDecisions?: number;
}

export interface ShadowDependencies {
  store: EventStore;
  db: Kysely<any>;
  clock: Clock;
  logger: Logger;
  providers: Providers;
  historyHorizonMs: number;
  rulesDir: string;
  /** The ruleset deciding now, which a candidate's rules are compared with. */
  deciding(): CompiledRuleset;
  /** The decisions this process makes, in memory, for the businesses a shadow follows. */
  live?: LiveDecisions;
  /** Makes the engine decide with the rules directory as it now is. */
  reloadRules(): Promise<boolean>;
}

const MAX_HOURS = 14 * 24;
const DEFAULT_MAX_DECISIONS = 1_000_000;
/** How often a running shadow records what it evaluated, and checks its time limit. */
const RECORD_EVERY_MS = 5_000;

function compileCandidate(files: Record<string, string>): CompiledRuleset {
  try {
    return compileSources(candidateSources(files));
  } catch (e) {
    if (e instanceof RuleErrors) throw new ValidationError(`candidate rules do not compile: ${e.format()}`, 'files');
    throw e;
  }
}

/**
 * The running shadows by business. A shadow evaluates every decision of its business, other nodes' partitions'
 * too: while one runs here, the store reads every row other nodes append whole (EventStore.wholeRows).
 */
class Runners extends Map<string, ShadowRunner> {
  constructor(private readonly running: (any: boolean) => void) {
    super();
  }
  override set(businessId: string, runner: ShadowRunner): this {
    super.set(businessId, runner);
    this.running(true);
    return this;
  }
  override delete(businessId: string): boolean {
    const deleted = super.delete(businessId);
    this.running(this.size > 0);
    return deleted;
  }
  override clear(): void {
    super.clear();
    this.running(false);
  }
}

export class ShadowService {
  readonly #runners = new Runners((any) => this.deps.store.wholeRows.need('shadow', any ? 'every' : undefined));
  /** Stops at a limit being recorded. */
  readonly #ending = new Set<Promise<void>>();
  readonly #unsubscribe: () => void;
  readonly #timer: NodeJS.Timeout;

  private constructor(private readonly deps: ShadowDependencies) {
    // Committed events only: the decision has been answered, or is about to be, and pays one map lookup per batch.
    this.#unsubscribe = deps.store.subscribe((events) => {
      for (const e of events) {
        if (e.type === 'ShadowStarted' || e.type === 'ShadowStopped') this.#follow(e);
        else if (this.#runners.size > 0) this.#runners.get(e.metadata.businessId)?.offer(e);
      }
    });
    this.#timer = setInterval(() => {
      for (const runner of this.#runners.values())
        runner.tick().catch((err) => deps.logger.error({ err, shadowId: runner.spec.shadowId }, 'shadow record failed'));
    }, RECORD_EVERY_MS);
    this.#timer.unref();
  }

  /** Resumes the shadows left running by the last process, from where they last recorded. */
  static async start(deps: ShadowDependencies): Promise<ShadowService> {
    const service = new ShadowService(deps);
    const running = await (deps.db as Kysely<ShadowTables>).selectFrom('shadow_runs').selectAll().where('stopped_at', 'is', null).execute();
    for (const run of running) {
      const actor = { businessId: run.business_id };
      if (Date.parse(run.until) <= deps.clock.now().getTime()) {
        await service.#append(actor, [
          { type: 'ShadowStopped', data: { shadowId: run.shadow_id, reason: 'time limit', stoppedAt: run.until, by: 'system' } },
        ]);
        continue;
      }
      service.#run(run.business_id, {
        shadowId: run.shadow_id,
        candidate: compileCandidate(JSON.parse(run.files)),
        until: Date.parse(run.until),
        maxDecisions: Number(run.max_decisions),
        afterPosition: Number(run.through_position),
        evaluated: Number(run.decisions) + Number(run.unreproducible),
      });
    }
    return service;
  }

  /** A shadow another process (the CLI) started or stopped: this process runs it, or stops running it. */
  #follow(e: StoredEvent): void {
    const businessId = e.metadata.businessId;
    const running = this.#runners.get(businessId);
    if (e.type === 'ShadowStopped') {
      const { shadowId } = e.data as { shadowId: string };
      if (running?.spec.shadowId !== shadowId) return;
      this.#runners.delete(businessId);
      running.stop('stopped').catch((err) => this.deps.logger.error({ err, shadowId }, 'shadow stop failed'));
      return;
    }
    const d = e.data as Extract<ShadowEvent, { type: 'ShadowStarted' }>['data'];
    if (running) return;
    this.#run(businessId, {
      shadowId: d.shadowId,
      candidate: compileCandidate(d.files),
      until: Date.parse(d.until),
      maxDecisions: d.maxDecisions,
      afterPosition: d.afterPosition,
      evaluated: 0,
    });
  }

  #run(businessId: string, spec: Omit<ConstructorParameters<typeof ShadowRunner>[0], 'businessId'>): ShadowRunner {
    const { store, db, clock, providers, historyHorizonMs, logger, deciding, live } = this.deps;
    const runner = new ShadowRunner(
      { businessId, ...spec },
      {
        store,
        db: db as Kysely<MonitoringTables>,
        clock,
        providers,
        historyHorizonMs,
        deciding,
        live,
        record: (events) => this.#append({ businessId }, events),
        stopped: (reason) => {
          const ending = this.#end({ businessId }, reason, runner).then(
            () => undefined,
            (err) => logger.error({ err, shadowId: spec.shadowId }, 'shadow stop failed'),
          );
          this.#ending.add(ending);
          void ending.finally(() => this.#ending.delete(ending));
        },
      },
    );
    runner.started.catch((err) => logger.error({ err, shadowId: spec.shadowId }, 'shadow could not start'));
    this.#runners.set(businessId, runner);
    return runner;
  }

  async #append({ businessId, userId }: ShadowActor, events: ShadowEvent[]): Promise<void> {
    await this.deps.store.append(shadowStream(businessId), events, { metadata: { businessId, actor: userId ?? 'api' } });
  }

  /**
   * Stops the business's running shadow: this process's runner, or, run by another process, the one the read model
   * shows running (that process stops when it reads the event). Returns its id.
   */
  async #end(actor: ShadowActor, reason: ShadowStopReason, runner = this.#runners.get(actor.businessId)): Promise<string> {
    let shadowId = runner?.spec.shadowId;
    if (runner) {
      if (this.#runners.get(actor.businessId) === runner) this.#runners.delete(actor.businessId);
      await runner.stop(reason);
    } else {
      const run = await this.report(actor.businessId).catch(() => undefined);
      if (run?.shadow.status !== 'running') throw new NotFoundError('No shadow ruleset runs for this business');
      shadowId = run.shadow.shadowId;
    }
    const data = { shadowId: shadowId!, reason, stoppedAt: this.deps.clock.now().toISOString(), by: actor.userId ?? 'system' };
    await this.#append(actor, [{ type: 'ShadowStopped', data }]);
    return shadowId!;
  }

  /** Deploys a candidate in shadow for the business; refused while another shadow of it runs. */
  async deploy(actor: ShadowActor, input: ShadowInput): Promise<ShadowReport> {
    const hours = input.hours ?? 24;
    if (!(typeof hours === 'number' && hours > 0 && hours <= MAX_HOURS))
      throw new ValidationError(`hours must be a number above 0 and at most ${MAX_HOURS}`, 'hours');
    const maxDecisions = input.maxDecisions ?? DEFAULT_MAX_DECISIONS;
    if (!(Number.isInteger(maxDecisions) && maxDecisions >= 1))
      throw new ValidationError('maxDecisions must be a whole number of at least 1', 'maxDecisions');
    const candidate = compileCandidate(input.files);
    const last = await this.report(actor.businessId).catch(() => undefined);
    if (this.#runners.has(actor.businessId) || last?.shadow.status === 'running')
      throw new ConflictError('a shadow ruleset already runs for this business: stop it first');
    const now = this.deps.clock.now();
    const shadowId = newId(now);
    const afterPosition = this.deps.store.notifiedPosition;
    const until = new Date(now.getTime() + hours * 3_600_000);
    // Registered before its start is appended, so that no decision committed meanwhile is missed.
    const runner = this.#run(actor.businessId, { shadowId, candidate, until: until.getTime(), maxDecisions, afterPosition, evaluated: 0 });
    try {
      await this.#append(actor, [
        {
          type: 'ShadowStarted',
          data: {
            shadowId,
            candidateVersion: candidate.version,
            files: input.files,
            startedAt: now.toISOString(),
            afterPosition,
            until: until.toISOString(),
            maxDecisions,
            by: actor.userId ?? 'api',
          },
        },
      ]);
    } catch (error) {
      this.#runners.delete(actor.businessId);
      await runner.stop('stopped');
      throw error;
    }
    return this.report(actor.businessId);
  }

  /** Stops the business's running shadow; what it evaluated stays to read. */
  async stop(actor: ShadowActor): Promise<ShadowReport> {
    const shadowId = await this.#end(actor, 'stopped');
    return this.report(actor.businessId, { shadowId });
  }

  /**
   * Makes the running shadow's candidate the deciding ruleset: its files replace the rules directory's, the engine
   * reloads them, and the shadow stops as published. The rules directory is every business's, so only an
   * administrator may do it, under four eyes when the business's policy says so. Given `shadowId` (an approved
   * request names the shadow it was asked about), another shadow running now is refused.
   */
  async publish(actor: ShadowActor, shadowId?: string): Promise<ShadowReport> {
    const run = await this.report(actor.businessId).catch(() => undefined);
    if (run?.shadow.status !== 'running') throw new NotFoundError('No shadow ruleset runs for this business');
    if (shadowId !== undefined && run.shadow.shadowId !== shadowId)
      throw new ConflictError(`shadow ${shadowId} no longer runs (${run.shadow.shadowId} does): nothing was published`);
    await this.#end(actor, 'published');
    await writeRulesDir(this.deps.rulesDir, run.shadow.files);
    await this.deps.reloadRules();
    return this.report(actor.businessId, { shadowId: run.shadow.shadowId });
  }

  /** Waits until the business's running shadow has evaluated and recorded every decision committed so far. */
  async settle(businessId: string): Promise<void> {
    await this.#runners.get(businessId)?.settle();
    await Promise.all(this.#ending);
  }

  /**
   * How often each rule of the business's running shadow was evaluated on its own in this process: the rules that
   * differ from the deciding ruleset's (the others' outcomes are the deciding evaluation's).
   */
  evaluations(businessId: string): ReadonlyMap<string, number> {
    return this.#runners.get(businessId)?.evaluations ?? new Map();
  }

  /** The business's shadow (the running one, else the last), or the one named. */
  async report(businessId: string, query: { shadowId?: string; pair?: string; page?: number; limit?: number } = {}): Promise<ShadowReport> {
    return shadowReport(this.deps.db as Kysely<ShadowTables>, businessId, query);
  }

  /** Records what the running shadows evaluated; they resume from there at the next start. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#unsubscribe();
    for (const runner of this.#runners.values()) await runner.settle().catch(() => undefined);
    await Promise.all(this.#ending);
    this.#runners.clear();
  }
}

/** The candidate's files become the rules directory's: its rules and lists, and none of the others. */
async function writeRulesDir(dir: string, files: Record<string, string>): Promise<void> {
  const sources = candidateSources(files);
  for (const f of [...sources.files, ...sources.lists]) await writeDurably(join(dir, f.path), f.text);
  const keep = new Set([...sources.files, ...sources.lists].map((f) => f.path));
  for (const [sub, suffix] of [
    ['', '.rules'],
    ['lists', '.txt'],
  ] as const) {
    const names = await readdir(join(dir, sub)).catch(() => [] as string[]);
    for (const name of names) {
      const path = sub ? `${sub}/${name}` : name;
      if (name.endsWith(suffix) && !keep.has(path)) await rm(join(dir, path));
    }
  }
}
