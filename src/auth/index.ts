export { apiKeysProjection, type AuthTables } from './projection.js';
export { AuthService, type IssuedKey, type KeySummary, type Principal } from './service.js';
