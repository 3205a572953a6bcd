export { usersProjection, type UserTables } from './projection.js';
export { UserService, type Actor, type User, type UserRef } from './service.js';
export type { UserEvent } from './events.js';
