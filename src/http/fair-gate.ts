/**
 * Admits work up to `concurrency` at a time, and when it is full, lets waiting work in one tenant at a time in turn
 * (round robin), whatever order it arrived in. A tenant sending 64 decisions at once then holds the slots it gets
 * while another tenant's one decision waits only for the next slot to free, not behind the 64. A plain FIFO
 * semaphore would queue it behind them; no maintained library on npm does per-key round robin with this little
 * cost on the instant path (a counter check when there is room).
 */
export class FairGate {
  #active = 0;
  /** Waiting work by tenant; a Map iterates in insertion order, and a tenant served goes to the back. */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(readonly concurrency: number) {}

  get active(): number {
    return this.#active;
  }

  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    if (this.#active < this.concurrency && this.#waiting.size === 0) this.#active++;
    else await this.#wait(tenant);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #wait(tenant: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.#waiting.get(tenant);
      if (queue) queue.push(resolve);
      else this.#waiting.set(tenant, [resolve]);
    });
  }

  /** Hands the freed slot to the tenant that has waited longest for a turn. */
  #release(): void {
    const next = this.#waiting.entries().next();
    if (next.done) {
      this.#active--;
      return;
    }
    const [tenant, queue] = next.value;
    const admit = queue.shift()!;
    this.#waiting.delete(tenant);
    if (queue.length > 0) this.#waiting.set(tenant, queue);
    admit();
  }
}
