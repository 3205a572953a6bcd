import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BusyError, DomainError } from '../errors.js';
import { requestLog } from './middleware/context.js';

/**
 * The interface uses three error bodies, chosen by operation: `{error, message}` (validation on screening,
 * transactions, devices, blacklists, upload), `{message}` (registry lookup, cases) and
 * `{success: false, message}` (customer fetch). Routes pick theirs; the mapping below stays in one place.
 */
export type ErrorStyle = 'error' | 'message' | 'success';

export function errorBody(style: ErrorStyle, status: number, message: string): Record<string, unknown> {
  switch (style) {
    case 'error':
      return { error: status, message };
    case 'message':
      return { message };
    case 'success':
      return { success: false, message };
  }
}

const STATUS: Record<DomainError['kind'], ContentfulStatusCode> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  busy: 429,
};

export function respondError(c: Context, status: ContentfulStatusCode, message: string): Response {
  const style: ErrorStyle = c.get('errorStyle') ?? 'error';
  return c.json(errorBody(style, status, message), status);
}

/** Maps anything thrown to a response. An unexpected fault never shows its stack: it is logged with the request id. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof BusyError) c.header('Retry-After', String(err.retryAfterSeconds));
  if (err instanceof DomainError) return respondError(c, STATUS[err.kind], err.message);
  if (err instanceof HTTPException) return respondError(c, err.status as ContentfulStatusCode, err.message || 'Bad request');
  const requestId: string | undefined = c.get('requestId');
  requestLog(c)?.error({ err }, 'unhandled error');
  return c.json({ error: 500, message: 'Internal error', requestId }, 500);
}

export function notFound(c: Context): Response {
  return respondError(c, 404, `Route not found: ${c.req.method} ${c.req.path}`);
}
