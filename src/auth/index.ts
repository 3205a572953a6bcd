export { BUSINESS_ID, checkBusinessId, collidingBusinessIds } from './business-id.js';
export { apiKeysProjection, type AuthTables } from './projection.js';
export { AuthService, type IssuedKey, type KeySummary, type Principal } from './service.js';
