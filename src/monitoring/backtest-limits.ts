// How many backtests may run at once, per business and in all. Each runs in a thread of its own and reads its
// business's decisions from the log, so a few at once already fill the machine's cores: beyond the limits a
// backtest is refused at once (BusyError: 429 with Retry-After) rather than queued behind the others.
import { BusyError } from '../errors.js';

export interface BacktestLimits {
  /** Backtests one business may run at once (default 1). */
  perBusiness: number;
  /** Backtests all businesses together may run at once (default 2). */
  total: number;
}

export const DEFAULT_BACKTEST_LIMITS: BacktestLimits = { perBusiness: 1, total: 2 };

/** What a refused client is told to wait: a backtest over a long history takes seconds to tens of seconds. */
const RETRY_AFTER_SECONDS = 10;

export class BacktestSlots {
  readonly #running = new Map<string, number>();
  #total = 0;

  constructor(private readonly limits: BacktestLimits) {}

  /** Runs `work` in a slot of `businessId`, or throws BusyError when the business or the engine has none free. */
  async run<T>(businessId: string, work: () => Promise<T>): Promise<T> {
    const mine = this.#running.get(businessId) ?? 0;
    if (mine >= this.limits.perBusiness)
      throw new BusyError(
        `This business already runs ${mine} backtest${mine === 1 ? '' : 's'}, the most it may run at once: retry when ${mine === 1 ? 'it has' : 'they have'} finished`,
        RETRY_AFTER_SECONDS,
      );
    if (this.#total >= this.limits.total)
      throw new BusyError(`The engine already runs ${this.#total} backtests, the most it runs at once: retry shortly`, RETRY_AFTER_SECONDS);
    this.#running.set(businessId, mine + 1);
    this.#total++;
    try {
      return await work();
    } finally {
      this.#total--;
      const left = (this.#running.get(businessId) ?? 1) - 1;
      if (left === 0) this.#running.delete(businessId);
      else this.#running.set(businessId, left);
    }
  }
}
