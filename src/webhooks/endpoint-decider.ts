import { ConflictError, NotFoundError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { EndpointChangedData, EndpointCreatedData, WebhookEvent } from './events.js';

export interface EndpointState {
  exists: boolean;
  deleted: boolean;
  secret: string | null;
}

export type EndpointCommand =
  | { type: 'Create'; data: EndpointCreatedData }
  | { type: 'Change'; data: EndpointChangedData }
  | { type: 'RotateSecret'; data: { endpointId: string; secret: string; at: Date } }
  | { type: 'Delete'; data: { endpointId: string; deletedAt: string } };

type EndpointEvent = Extract<WebhookEvent, { type: `WebhookEndpoint${'Created' | 'Changed' | 'SecretRotated' | 'Deleted'}` }>;

/** The old secret keeps signing for a day after a rotation, as the business-wide secret does (src/auth). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A subscribed endpoint: created once, changed or re-keyed while it exists, deleted for good. */
export const endpointDecider: Decider<EndpointState, EndpointCommand, EndpointEvent> = {
  initialState: () => ({ exists: false, deleted: false, secret: null }),

  decide(command, state) {
    if (command.type === 'Create') {
      if (state.exists) throw new ConflictError(`webhook endpoint ${command.data.endpointId} already exists`);
      return [{ type: 'WebhookEndpointCreated', data: command.data }];
    }
    if (!state.exists || state.deleted) throw new NotFoundError('Webhook endpoint not found');
    switch (command.type) {
      case 'Change':
        return [{ type: 'WebhookEndpointChanged', data: command.data }];
      case 'RotateSecret':
        return [
          {
            type: 'WebhookEndpointSecretRotated',
            data: {
              endpointId: command.data.endpointId,
              secret: command.data.secret,
              previousSecret: state.secret!,
              previousValidUntil: new Date(command.data.at.getTime() + ROTATION_OVERLAP_MS).toISOString(),
            },
          },
        ];
      case 'Delete':
        return [{ type: 'WebhookEndpointDeleted', data: command.data }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated':
        return { exists: true, deleted: false, secret: event.data.secret };
      case 'WebhookEndpointChanged':
        return state;
      case 'WebhookEndpointSecretRotated':
        return { ...state, secret: event.data.secret };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
    }
  },
};
