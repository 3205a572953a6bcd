import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { AppEnv } from '../env.js';

type Observe = (seconds: number) => void;

/**
 * Records each request's latency by route (the route pattern, not the raw path, so that ids do not explode the
 * label set), and makes the request's logger reachable through `requestLog`.
 */
export function requestContext(logger: Logger, metrics: Metrics): MiddlewareHandler<AppEnv> {
  // One histogram child per label set: prom-client otherwise sorts and hashes the labels on every observation.
  const observers = new Map<string, Observe>();
  const observer = (method: string, route: string, status: string): Observe => {
    const key = `${method} ${status} ${route}`;
    let observe = observers.get(key);
    if (!observe) {
      const child = metrics.httpDuration.labels({ method, route, status });
      observe = (seconds) => child.observe(seconds);
      observers.set(key, observe);
    }
    return observe;
  };
  return async (c, next) => {
    const started = performance.now();
    c.set('logger', logger);
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = routePath(c);
    observer(c.req.method, route, String(c.res.status))(seconds);
    if (logger.isLevelEnabled('debug')) {
      requestLog(c)?.debug({ method: c.req.method, path: c.req.path, route, status: c.res.status, ms: seconds * 1000 }, 'request');
    }
  };
}

/**
 * A logger bound to the request id (and the business, once authenticated). Made when first asked for, not per
 * request: a pino child serialises its bindings, and most requests never log.
 */
export function requestLog(c: Context<AppEnv>): Logger | undefined {
  const principal = c.get('principal');
  return c.get('logger')?.child({ requestId: c.get('requestId'), ...(principal ? { businessId: principal.businessId } : {}) });
}
