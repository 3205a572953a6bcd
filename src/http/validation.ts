import type { Context } from 'hono';
import type { z } from 'zod';
import { describeError } from '../validation-messages.js';
import { respondError } from './errors.js';

/** The hook every route's validator calls: failures become the route's error body with status 400. */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; data?: unknown },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  return respondError(c, 400, describeError(result.error, result.data));
}
