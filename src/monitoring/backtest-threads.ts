// The threads backtests run in (backtest-thread.ts), over the database file on read-only connections of their own.
// A thread is started when a backtest finds none idle and kept for the next ones until the engine closes: starting
// one loads the engine's modules again (under tsx, a second or more of CPU beside the server's) and asks the server
// thread's module loader where they are, which the server's event loop waited for at every backtest's start.
import type { Worker } from 'node:worker_threads';
import { ValidationError } from '../errors.js';
import { recordOf } from '../own-keys.js';
import type { BacktestReport } from '../rules/index.js';
import { startThread, threadEntry } from '../threads.js';
import type { BacktestJob, BacktestReply } from './backtest.js';

/** A report as it crossed from the thread: structured cloning gave its records Object.prototype back. */
const withoutPrototypes = (report: BacktestReport): BacktestReport => ({
  ...report,
  transitions: recordOf(Object.entries(report.transitions)),
  ruleHits: recordOf(Object.entries(report.ruleHits)),
  samples: recordOf(Object.entries(report.samples)),
});

/** Sends `job` to `worker` and waits for its one reply, or for the thread to fail or stop first. */
function ask(worker: Worker, job: BacktestJob): Promise<BacktestReply> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      worker.off('message', answered).off('error', failed).off('exit', stopped);
    };
    const answered = (reply: BacktestReply) => {
      settle();
      resolve(reply);
    };
    const failed = (error: Error) => {
      settle();
      reject(error);
    };
    const stopped = (code: number) => {
      settle();
      reject(new Error(`backtest thread stopped (exit code ${code})`));
    };
    worker.on('message', answered).on('error', failed).on('exit', stopped);
    worker.postMessage(job);
  });
}

export class BacktestThreads {
  readonly #idle: Worker[] = [];
  readonly #started = new Set<Worker>();
  #closed = false;

  constructor(private readonly dbPath: string) {}

  /** Runs `job` in an idle thread, or a new one; how many run at once is the caller's bound (BacktestSlots). */
  async run(job: BacktestJob): Promise<BacktestReport> {
    if (this.#closed) throw new Error('the engine is closing: no backtest starts');
    const worker = this.#idle.pop() ?? this.#start();
    worker.ref();
    const reply = await ask(worker, job);
    // An idle thread does not keep the process alive.
    worker.unref();
    this.#idle.push(worker);
    if ('report' in reply) return withoutPrototypes(reply.report);
    if ('invalid' in reply) throw new ValidationError(reply.invalid.message, reply.invalid.field);
    throw new Error(`backtest thread failed: ${reply.failure}`);
  }

  /** Stops every thread; a backtest still running fails. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#started].map((w) => w.terminate()));
  }

  #start(): Worker {
    const worker = startThread(threadEntry(import.meta.url, 'backtest-thread'), () => ({ dbPath: this.dbPath }));
    this.#started.add(worker);
    // A thread that failed or stopped is dropped (a running backtest's own listeners report it).
    const forget = () => {
      this.#started.delete(worker);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
    };
    worker.on('error', forget).on('exit', forget);
    return worker;
  }
}
