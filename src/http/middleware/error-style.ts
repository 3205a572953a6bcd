import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import type { ErrorStyle } from '../errors.js';

/** Marks the routes below a prefix with the error body shape the interface uses for them. */
export const errorStyle =
  (style: ErrorStyle): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    c.set('errorStyle', style);
    await next();
  };
