import type { Command } from './context.js';
import { keysCreate, keysList, keysRevoke, webhookSecretRotate } from './keys.js';
import { replay } from './replay.js';

/** Command words → handler. The longest matching prefix of the arguments wins. */
export const commands: Record<string, { run: Command; help: string }> = {
  'keys create': { run: keysCreate, help: 'keys create --name NAME [--business ID] [--user USER_ID]' },
  'keys list': { run: keysList, help: 'keys list' },
  'keys revoke': { run: keysRevoke, help: 'keys revoke API_KEY' },
  'webhook-secret rotate': { run: webhookSecretRotate, help: 'webhook-secret rotate --business ID' },
  replay: { run: replay, help: 'replay --verify | --rebuild' },
};
