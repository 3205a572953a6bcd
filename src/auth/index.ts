export { BUSINESS_ID, checkBusinessId, collidingBusinessIds } from './business-id.js';
export { apiKeysProjection, type AuthTables } from './projection.js';
export { listKeys, type KeySummary } from './keys-read.js';
export { AuthService, keyActorId, keyActorName, type IssuedKey, type Principal } from './service.js';
