import type { Context } from 'hono';
import type { z } from 'zod';
import { describeError, illFormedAt } from '../validation-messages.js';
import { respondError } from './errors.js';

/**
 * The hook every route's validator calls: failures become the route's error body with status 400, and so does a
 * valid body, query or path holding ill-formed Unicode (a lone surrogate), naming the field.
 */
export function validationHook(
  result: { success: true; data?: unknown } | { success: false; error: z.ZodError; data?: unknown },
  c: Context,
): Response | undefined {
  if (!result.success) return respondError(c, 400, describeError(result.error, result.data));
  const field = illFormedAt(result.data);
  return field === undefined ? undefined : respondError(c, 400, `${field} must be well-formed Unicode: it holds a lone surrogate`);
}
