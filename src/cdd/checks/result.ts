import type { Check, CheckResult } from '../types.js';

/** Collects the results of one check, stamping each with the time it ran. */
export class CheckBuilder {
  readonly #results: CheckResult[] = [];
  constructor(
    private readonly checkId: string,
    private readonly now: () => Date,
  ) {}

  add(
    name: string,
    ok: boolean,
    note: string,
    submitted: string | null | undefined,
    found: string | null | undefined,
    startDate: string,
  ): this {
    this.#results.push({
      name,
      result: ok ? 'success' : 'failed',
      note,
      status: 'completed',
      values: [submitted ?? null, found ?? null],
      startDate,
      endDate: this.now().toISOString(),
    });
    return this;
  }

  build(): Check {
    return { checkId: this.checkId, results: this.#results };
  }
}
