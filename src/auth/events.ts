/** What happens to API credentials. Secrets never enter the log: only their SHA-256. */
export type AuthEvent =
  | {
      type: 'ApiKeyIssued';
      data: {
        apiKey: string;
        secretHash: string;
        businessId: string;
        name: string;
        webhookSecret: string;
        userId?: string;
        /** Set on the first key of a business with '-' whose stream ids encode it (see inStreamId). */
        dashEncoded?: true;
      };
    }
  | { type: 'ApiKeyRevoked'; data: { apiKey: string } }
  | { type: 'ApiKeyBoundToUser'; data: { apiKey: string; userId: string } }
  | { type: 'WebhookSecretRotated'; data: { apiKey: string; webhookSecret: string; previousSecret: string; previousValidUntil: string } };

export const apiKeyStream = (apiKey: string) => `apikey-${apiKey}`;
