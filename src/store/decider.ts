import { ExpectedVersionConflictError } from './errors.js';
import type { EventStore } from './event-store.js';
import type { EventMetadata, NewEvent, StoredEvent } from './types.js';

/**
 * A decider in the manner of Emmett: `decide` turns a command and the current state into events (or throws a
 * domain error), `evolve` folds one event into the state. Both are pure; the store does the I/O.
 */
export interface Decider<State, Command, Event extends NewEvent> {
  initialState(): State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export function fold<State, Event extends NewEvent>(
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  events: readonly (StoredEvent | Event)[],
): State {
  return events.reduce((state, e) => decider.evolve(state, { type: e.type, data: e.data } as Event), decider.initialState());
}

/**
 * Reads the stream, decides, and appends with the version it read, so two concurrent commands on one stream
 * cannot both succeed on a stale state. Conflicts are retried a few times against the fresh state.
 */
export async function handleCommand<State, Command, Event extends NewEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  metadata: EventMetadata,
): Promise<{ state: State; events: StoredEvent[] }> {
  for (let attempt = 0; ; attempt++) {
    const history = await store.readStream(streamId);
    const state = fold(decider, history);
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events: [] };
    try {
      const result = await store.append(streamId, events, { expectedVersion: history.length, metadata });
      return { state: events.reduce(decider.evolve, state), events: result.events };
    } catch (error) {
      if (attempt >= 3 || !(error instanceof ExpectedVersionConflictError)) throw error;
    }
  }
}
