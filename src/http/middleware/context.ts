import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { AppEnv } from '../env.js';

/**
 * Gives each request a logger bound to its request id, and records its latency by route (the route pattern,
 * not the raw path, so that ids do not explode the label set).
 */
export function requestContext(logger: Logger, metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const log = logger.child({ requestId: c.get('requestId') });
    c.set('log', log);
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = routePath(c);
    metrics.httpDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, seconds);
    log.debug({ method: c.req.method, path: c.req.path, route, status: c.res.status, ms: seconds * 1000 }, 'request');
  };
}
