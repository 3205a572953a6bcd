export { BUSINESS_ID, checkBusinessId, collidingBusinessIds } from './business-id.js';
export { apiKeysProjection, type AuthTables } from './projection.js';
export { AuthService, keyActorId, keyActorName, type IssuedKey, type KeySummary, type Principal } from './service.js';
