// Decisions in memory between their evaluation and their commit, for the businesses a shadow follows: the shadow
// takes each one as the pipeline made it (request, features read, outcome, deciding ruleset) when its event
// commits, instead of parsing the event's stored text again on the deciding thread.
import type { CompiledRuleset } from '../rules/index.js';
import type { TransactionDecidedData } from './events.js';

export interface LiveDecision {
  readonly data: TransactionDecidedData;
  /** The ruleset that made it. */
  readonly ruleset: CompiledRuleset;
}

export class LiveDecisions {
  /** Followers per business. */
  readonly #followed = new Map<string, number>();
  /** By the stream their event is appended to. */
  readonly #pending = new Map<string, LiveDecision>();

  /** Keeps the business's decisions until their events commit; the returned function stops following. */
  follow(businessId: string): () => void {
    this.#followed.set(businessId, (this.#followed.get(businessId) ?? 0) + 1);
    let followed = true;
    return () => {
      if (!followed) return;
      followed = false;
      const n = this.#followed.get(businessId)! - 1;
      if (n === 0) this.#followed.delete(businessId);
      else this.#followed.set(businessId, n);
    };
  }

  follows(businessId: string): boolean {
    return this.#followed.size > 0 && this.#followed.has(businessId);
  }

  /** Before the append; the store tells its subscribers of a commit before the append returns. */
  decided(streamId: string, decision: LiveDecision): void {
    this.#pending.set(streamId, decision);
  }

  /** After the append, committed or not. */
  settled(streamId: string): void {
    this.#pending.delete(streamId);
  }

  /** The decision whose event was just committed to the stream, if it was made here for a followed business. */
  committed(streamId: string): LiveDecision | undefined {
    return this.#pending.get(streamId);
  }
}
