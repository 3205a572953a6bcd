import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Principal } from '../auth/index.js';
import type { Logger } from '../logger.js';
import type { ErrorStyle } from './errors.js';

export interface AppEnv {
  Variables: {
    requestId: string;
    /** The engine's logger; `requestLog(c)` binds it to the request. */
    logger: Logger;
    principal: Principal;
    errorStyle: ErrorStyle;
  };
}

export type App = OpenAPIHono<AppEnv>;
