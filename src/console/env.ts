import type { Engine } from '../engine.js';
import type { Session } from '../users/index.js';

export interface ConsoleEnv {
  Variables: {
    engine: Engine;
    /** The signed-in person; absent only on the sign-in pages. */
    session: Session;
    /** The CSRF token every form and htmx request of this session carries. */
    csrf: string;
    /** Four-eyes requests of the business waiting for a second person. */
    pendingApprovals: number;
  };
}
