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
    /** The JSON body, where a middleware has parsed it already (owner.ts): the route's handler takes it as it is. */
    jsonBody: unknown;
  };
}

export type App = OpenAPIHono<AppEnv>;
