import { listKeys } from '../auth/keys-read.js';
import { apiKeysProjection } from '../auth/projection.js';
import { withReadModel, type Command } from './context.js';

/**
 * `keys list`: the API-key read model alone, without opening the log when the read model is current. A module of
 * its own, so that it loads none of the key service's code (its events, decider and the store's writer).
 */
export const keysList: Command = async (_argv, io) => {
  const keys = await withReadModel(apiKeysProjection.name, (db) => listKeys(db));
  io.out(JSON.stringify(keys, null, 2));
  return 0;
};
