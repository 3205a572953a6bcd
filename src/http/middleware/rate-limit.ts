import type { Context, MiddlewareHandler } from 'hono';
import { rateLimiter, type RateLimitInfo } from 'hono-rate-limiter';
import {
  DEFAULT_RATE_LIMITS,
  describeWindow,
  rateLimitVariable,
  ROUTE_CLASSES,
  routeClassOf,
  type RateLimits,
  type RouteClass,
} from '../../rate-limits.js';
import type { AppEnv } from '../env.js';
import { FairGate } from '../fair-gate.js';
import { respondError } from '../errors.js';

const NOUN: Record<RouteClass, string> = {
  decisions: 'decision',
  reads: 'read',
  screening: 'screening',
  backtests: 'backtest',
  uploads: 'upload URL',
  writes: 'write',
};

/**
 * Per-business limits by route class (hono-rate-limiter's fixed window, its in-memory store: one process holds one
 * business's count), so a business with four keys has one budget, not four. After authentication, so a stranger
 * cannot spend a business's budget by sending one of its keys with a wrong secret. Its standard headers are off: they would put a Headers object on every response (see request-id.ts);
 * the refused request alone gets Retry-After, and a body in the host's error shape saying which limit it met.
 */
export function rateLimits(configured: RateLimits = {}): MiddlewareHandler<AppEnv> {
  const limiters = new Map<RouteClass, MiddlewareHandler<AppEnv>>();
  for (const routeClass of ROUTE_CLASSES) {
    const limit = configured[routeClass] === undefined ? DEFAULT_RATE_LIMITS[routeClass] : configured[routeClass];
    if (!limit) continue;
    const refuse = (c: Context<AppEnv>) => {
      const info = (c as unknown as Context<{ Variables: { rateLimit: RateLimitInfo } }>).get('rateLimit');
      const seconds = Math.max(1, Math.ceil(((info.resetTime?.getTime() ?? Date.now() + limit.windowMs) - Date.now()) / 1000));
      c.header('Retry-After', String(seconds));
      return respondError(
        c,
        429,
        `Too many ${NOUN[routeClass]} requests for this business: the limit is ${describeWindow(limit)} (${rateLimitVariable(routeClass)}); retry after ${seconds} s`,
      );
    };
    limiters.set(
      routeClass,
      rateLimiter<AppEnv>({
        windowMs: limit.windowMs,
        limit: limit.limit,
        standardHeaders: false,
        keyGenerator: (c) => c.get('principal').businessId,
        handler: refuse,
      }) as MiddlewareHandler<AppEnv>,
    );
  }
  return (c, next) => {
    const limiter = limiters.get(routeClassOf(c.req.method, c.req.path));
    return limiter ? limiter(c, next) : next();
  };
}

/**
 * Decisions pass a FairGate by business: at most `concurrency` in the server at once, and when it is full, the
 * businesses waiting take turns. A rate limit caps what one business may send; this keeps a burst that stays under it
 * (or a machine slower than the limits assume) from queueing other tenants' decisions behind its own.
 */
export function fairDecisions(concurrency: number): MiddlewareHandler<AppEnv> {
  if (concurrency <= 0) return (_c, next) => next();
  const gate = new FairGate(concurrency);
  return (c, next) => (routeClassOf(c.req.method, c.req.path) === 'decisions' ? gate.run(c.get('principal').businessId, next) : next());
}
