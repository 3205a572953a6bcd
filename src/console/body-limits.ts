import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from '../http/middleware/body-limit.js';
import type { ConsoleEnv } from './env.js';

/** The sign-in and password forms: an email and up to three passwords of at most 256 characters, percent-encoded. */
export const SIGN_IN_BYTES = 16 * 1024;
/** Any other console form; a case comment is the longest text one carries. */
export const FORM_BYTES = 64 * 1024;
/** A candidate ruleset, pasted or uploaded as one file of at most a million characters. */
export const RULES_BYTES = 4 * 1024 * 1024;

const limited = (maxSize: number) =>
  bodyLimit<ConsoleEnv>({
    maxSize,
    onError: (c) => c.text(`Payload too large: a request body here may be at most ${maxSize} bytes.`, 413),
  });

const signIn = limited(SIGN_IN_BYTES);
const form = limited(FORM_BYTES);
const rules = limited(RULES_BYTES);

/**
 * Every console body is measured before anything reads it (the CSRF check and the sign-in form parse it whole):
 * a declared length over the limit is refused from its header, a chunked body as soon as it passes the limit.
 * Files go to the upload URL under its own limit, never through a console form.
 */
export const consoleBodyLimits: MiddlewareHandler<ConsoleEnv> = (c, next) => {
  const path = c.req.path;
  if (path === '/console/rules/candidate') return rules(c, next);
  if (path === '/console/sign-in' || path === '/console/password') return signIn(c, next);
  return form(c, next);
};
