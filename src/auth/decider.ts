import { ConflictError, NotFoundError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { AuthEvent } from './events.js';

export interface ApiKeyState {
  exists: boolean;
  revoked: boolean;
  businessId?: string;
  webhookSecret?: string;
}

export type AuthCommand =
  | { type: 'IssueApiKey'; data: Extract<AuthEvent, { type: 'ApiKeyIssued' }>['data'] }
  | { type: 'RevokeApiKey'; data: { apiKey: string } }
  | { type: 'BindApiKeyToUser'; data: { apiKey: string; userId: string } }
  | { type: 'RotateWebhookSecret'; data: { apiKey: string; webhookSecret: string; at: Date } };

/** The old webhook secret keeps verifying for a day after rotation, so receivers can roll over without downtime. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const apiKeyDecider: Decider<ApiKeyState, AuthCommand, AuthEvent> = {
  initialState: () => ({ exists: false, revoked: false }),
  decide(command, state) {
    if (command.type === 'IssueApiKey') {
      if (state.exists) throw new ConflictError(`API key ${command.data.apiKey} already exists`);
      return [{ type: 'ApiKeyIssued', data: command.data }];
    }
    if (!state.exists) throw new NotFoundError(`API key ${command.data.apiKey} not found`);
    switch (command.type) {
      case 'RevokeApiKey':
        return state.revoked ? [] : [{ type: 'ApiKeyRevoked', data: command.data }];
      case 'BindApiKeyToUser':
        return [{ type: 'ApiKeyBoundToUser', data: command.data }];
      case 'RotateWebhookSecret':
        return [
          {
            type: 'WebhookSecretRotated',
            data: {
              apiKey: command.data.apiKey,
              webhookSecret: command.data.webhookSecret,
              previousSecret: state.webhookSecret!,
              previousValidUntil: new Date(command.data.at.getTime() + ROTATION_OVERLAP_MS).toISOString(),
            },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { exists: true, revoked: false, businessId: event.data.businessId, webhookSecret: event.data.webhookSecret };
      case 'ApiKeyRevoked':
        return { ...state, revoked: true };
      case 'ApiKeyBoundToUser':
        return state;
      case 'WebhookSecretRotated':
        return { ...state, webhookSecret: event.data.webhookSecret };
    }
  },
};
