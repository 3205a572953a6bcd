import type { Context, Env, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';

/** The content types @hono/zod-openapi's media-type gate lets through to a route's JSON validator (its regex). */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * Route middleware that answers a JSON request itself, ahead of the validators @hono/zod-openapi puts on the route
 * (they run zod with safeParseAsync, which skips zod's compiled fast path). `handle` gets the parsed body and must
 * validate it as the route's schema does, with the same errors. Any other request goes on to the route's own
 * chain, so a wrong content type (415) or a missing body is answered exactly as on every other route.
 */
export const jsonFastPath =
  <E extends Env>(handle: (c: Context<E>, body: unknown) => Promise<Response>): MiddlewareHandler<E> =>
  async (c, next) => {
    const type = c.req.header('content-type');
    if (type === undefined || !JSON_REQUEST.test(type)) return next();
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new HTTPException(400, { message: 'Malformed JSON in request body' });
    }
    return handle(c, body);
  };
