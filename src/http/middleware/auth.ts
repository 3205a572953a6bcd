import type { MiddlewareHandler } from 'hono';
import type { AuthService } from '../../auth/index.js';
import type { AppEnv } from '../env.js';

/** Every /api/v1 operation needs both headers; any failure gets the interface's one message and no hint why. */
export function requireApiKey(auth: AuthService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = await auth.verify(c.req.header('apiKey'), c.req.header('apiSecret'));
    if (!principal) return c.json({ message: 'Invalid API credentials' }, 401);
    c.set('principal', principal);
    await next();
  };
}
