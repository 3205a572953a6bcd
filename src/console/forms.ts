import type { Context } from 'hono';
import { ValidationError } from '../errors.js';
import type { ConsoleEnv } from './env.js';

/** The signed-in person as the actor of a domain command: their events name them. */
export const actorOf = (c: Context<ConsoleEnv>) => ({
  businessId: c.var.session.businessId,
  userId: c.var.session.user._id,
  requestId: c.get('requestId' as never) as string | undefined,
});

/** A form field's trimmed text: required unless said otherwise, and at most `max` characters when given. */
export async function formText(c: Context<ConsoleEnv>, field: string, options: { required?: boolean; max?: number } = {}): Promise<string> {
  const value = (await c.req.parseBody())[field];
  const text = typeof value === 'string' ? value.trim() : '';
  if ((options.required ?? true) && !text) throw new ValidationError(`${field} is required`, field);
  if (options.max !== undefined && text.length > options.max)
    throw new ValidationError(`${field} is longer than ${options.max} characters`, field);
  return text;
}

/** Every value a form sends under one name (checkboxes): text values only. */
export async function formValues(c: Context<ConsoleEnv>, field: string): Promise<string[]> {
  const value = (await c.req.parseBody({ all: true }))[field];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}
