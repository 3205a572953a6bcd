export { usersProjection, type UserTables } from './projection.js';
export { UserService, type Actor, type User, type UserRef } from './service.js';
export { SignInService, SESSION_MS, type Session } from './sign-in.js';
export { CONSOLE_ROLES, type ConsoleRole, type UserEvent } from './events.js';
export { passwordProblem, SCRYPT_N_FLOOR, scryptCostProblem } from './passwords.js';
