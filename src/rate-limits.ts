/**
 * Per-business request limits, by route class: every key of a business draws on one budget. Each class has its own
 * budget, so that a burst of decisions does not use up a business's reads, and an expensive class (backtests,
 * screening) gets a small one.
 */
export const ROUTE_CLASSES = ['decisions', 'reads', 'screening', 'backtests', 'uploads', 'writes'] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** At most `limit` requests per `windowMs` for one business; `null` turns the class's limit off. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}
export type RateLimits = Partial<Record<RouteClass, RateLimit | null>>;

/**
 * Sized so that one business cannot take the capacity the others need; backtests and screening each cost far more
 * CPU than a read. Decisions have no limit by default: a switch at its peak may send what a node serves (2,380/s on
 * the 2-core development machine, docs/benchmarks.md), a limit below that would refuse its real traffic and one at it
 * would refuse nothing, and the turns decisions take by business (DECISION_CONCURRENCY) already keep one business's
 * burst from queueing the others'. RATE_LIMIT_DECISIONS sets one where a business must be held to a contract.
 */
export const DEFAULT_RATE_LIMITS: Record<RouteClass, RateLimit | null> = {
  decisions: null,
  reads: { limit: 200, windowMs: 1000 },
  screening: { limit: 20, windowMs: 1000 },
  backtests: { limit: 6, windowMs: 60_000 },
  uploads: { limit: 60, windowMs: 60_000 },
  writes: { limit: 100, windowMs: 1000 },
};

/** Every class without a limit: for benchmarks of the service's own capacity. */
export const NO_RATE_LIMITS: RateLimits = Object.fromEntries(ROUTE_CLASSES.map((routeClass) => [routeClass, null]));

/**
 * Decisions in the HTTP server at once, beyond which businesses take turns (DECISION_CONCURRENCY; 0 turns the turns
 * off). Enough in flight that a group commit still gathers a full batch; few enough that a waiting tenant's turn
 * comes after one commit, not after another tenant's whole burst.
 */
export const DEFAULT_DECISION_CONCURRENCY = 16;

export const rateLimitVariable = (routeClass: RouteClass) => `RATE_LIMIT_${routeClass.toUpperCase()}`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500/1s`, `6/1m`, `100/250ms`; `off` turns the limit off. Throws naming `name` on anything else. */
export function parseRateLimit(name: string, text: string): RateLimit | null {
  if (text.trim().toLowerCase() === 'off') return null;
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*(ms|s|m|h)\s*$/.exec(text);
  const limit = m ? Number(m[1]) : Number.NaN;
  const windowMs = m ? Number(m[2] || '1') * UNITS[m[3]!]! : Number.NaN;
  if (!(Number.isSafeInteger(limit) && limit >= 1 && Number.isSafeInteger(windowMs) && windowMs >= 1))
    throw new Error(`${name} must be requests per window such as 500/1s, 6/1m or 100/250ms, or off; got ${JSON.stringify(text)}`);
  return { limit, windowMs };
}

/** The RATE_LIMIT_<CLASS> variables that are set. */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv): RateLimits {
  const limits: RateLimits = {};
  for (const routeClass of ROUTE_CLASSES) {
    const text = env[rateLimitVariable(routeClass)];
    if (text) limits[routeClass] = parseRateLimit(rateLimitVariable(routeClass), text);
  }
  return limits;
}

const SCREENING = /^\/api\/v1\/(?:aml\/(?:screen|sanction|risk-monitoring)|adverse-media|kyc\/)/;

/** Which budget a request draws on. Asking for an upload URL is a GET, so paths come before methods. */
export function routeClassOf(method: string, path: string): RouteClass {
  if (path === '/api/v1/upload') return 'uploads';
  if (method === 'GET' || method === 'HEAD') return 'reads';
  if (path === '/api/v1/transaction-monitoring/instant') return 'decisions';
  if (path === '/api/v1/transaction-monitoring/rules/backtest') return 'backtests';
  if (SCREENING.test(path)) return 'screening';
  return 'writes';
}

/** "500 per second", "6 per minute", "100 per 250 ms". */
export function describeWindow({ limit, windowMs }: RateLimit): string {
  for (const [unit, ms] of [
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ] as const) {
    if (windowMs === ms) return `${limit} per ${unit}`;
    if (windowMs % ms === 0) return `${limit} per ${windowMs / ms} ${unit}s`;
  }
  return `${limit} per ${windowMs} ms`;
}
