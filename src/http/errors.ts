import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, QuotaExceededError, RetryLaterError } from '../errors.js';
import { storageFailureCode } from '../store/index.js';
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

/** The HTTP status of each kind of domain error, for every adapter (API routes and console pages). */
export const STATUS: Record<DomainError['kind'], ContentfulStatusCode> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  quota: 429,
  busy: 429,
  elsewhere: 503,
};

export function respondError(c: Context, status: ContentfulStatusCode, message: string): Response {
  const style: ErrorStyle = c.get('errorStyle') ?? 'error';
  return c.json(errorBody(style, status, message), status);
}

/** How long a client told that storage is full waits before retrying (the engine probes for space every 5 s). */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/**
 * Maps anything thrown to a response. An unexpected fault never shows its stack: it is logged with the request id.
 * A write refused for lack of space is a 503 with Retry-After, not logged here: the engine's StorageHealth logs
 * the episode once, however many requests fail during it.
 */
export function onError(err: Error, c: Context): Response {
  if (err instanceof QuotaExceededError && err.retryAfterSeconds !== undefined) c.header('Retry-After', String(err.retryAfterSeconds));
  if (err instanceof RetryLaterError) c.header('Retry-After', String(err.retryAfterSeconds));
  if (err instanceof DomainError) return respondError(c, STATUS[err.kind], err.message);
  if (err instanceof HTTPException) return respondError(c, err.status as ContentfulStatusCode, err.message || 'Bad request');
  if (storageFailureCode(err)) {
    c.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
    return respondError(c, 503, 'The service cannot store data right now: its storage is full. Nothing was recorded; retry later.');
  }
  const requestId: string | undefined = c.get('requestId');
  requestLog(c)?.error({ err }, 'unhandled error');
  return c.json({ error: 500, message: 'Internal error', requestId }, 500);
}

export function notFound(c: Context): Response {
  return respondError(c, 404, `Route not found: ${c.req.method} ${c.req.path}`);
}
