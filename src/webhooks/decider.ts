import { ConflictError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { WebhookDeliveriesTable } from './projection.js';
import type { DeliveryScheduledData, DeliveryStatus, WebhookEvent } from './events.js';

export interface DeliveryState {
  exists: boolean;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  leaseUntil: string | null;
}

export type DeliveryCommand =
  | { type: 'Schedule'; data: DeliveryScheduledData }
  | { type: 'Redeliver'; data: { deliveryId: string; now: string } };

/** The events of a delivery's own stream (claims and outcomes recorded in pages are on streams of their own). */
type DeliveryEvent = Extract<
  WebhookEvent,
  { type: 'WebhookDeliveryScheduled' | 'WebhookAttemptStarted' | 'WebhookAttemptFinished' | 'WebhookRedeliveryRequested' }
>;

/** A delivery's state as its read-model row holds it (claims and outcomes recorded in pages included). */
export const stateOf = (d: WebhookDeliveriesTable): DeliveryState => ({
  exists: true,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.next_attempt_at,
  leaseUntil: d.lease_until,
});

/** A delivery may be taken when it is due, or when the worker that took it vanished (its lease ran out). */
export function isDue(state: DeliveryState, now: string): boolean {
  if (state.status === 'pending') return state.nextAttemptAt !== null && state.nextAttemptAt <= now;
  return state.status === 'delivering' && state.leaseUntil !== null && state.leaseUntil <= now;
}

export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, DeliveryEvent> = {
  initialState: () => ({ exists: false, status: 'pending', attempts: 0, nextAttemptAt: null, leaseUntil: null }),

  decide(command, state) {
    switch (command.type) {
      case 'Schedule':
        if (state.exists) throw new ConflictError('delivery already scheduled');
        return [{ type: 'WebhookDeliveryScheduled', data: command.data }];
      case 'Redeliver':
        if (!state.exists) throw new ConflictError('delivery does not exist');
        if (state.status === 'delivering' && state.leaseUntil !== null && state.leaseUntil > command.data.now) {
          throw new ConflictError('the delivery is being attempted right now');
        }
        return [{ type: 'WebhookRedeliveryRequested', data: { deliveryId: command.data.deliveryId, requestedAt: command.data.now } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookDeliveryScheduled':
        return { ...state, exists: true, status: 'pending', nextAttemptAt: event.data.scheduledAt };
      case 'WebhookAttemptStarted':
        return { ...state, status: 'delivering', attempts: event.data.attempt, leaseUntil: event.data.leaseUntil };
      case 'WebhookAttemptFinished':
        return {
          ...state,
          status: event.data.outcome === 'delivered' ? 'delivered' : event.data.outcome === 'retry' ? 'pending' : 'failed',
          nextAttemptAt: event.data.nextAttemptAt,
          leaseUntil: null,
        };
      case 'WebhookRedeliveryRequested':
        return { ...state, status: 'pending', nextAttemptAt: event.data.requestedAt, leaseUntil: null };
    }
  },
};
