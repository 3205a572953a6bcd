import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

const HEADER = 'X-Request-Id';

/**
 * hono's requestId (same header, same acceptance of a client's id), except that under @hono/node-server the
 * header goes straight onto the Node response. Set through `c.header`, it makes every response carry a WHATWG
 * Headers object, which costs more to build and to copy back out than the rest of a small JSON response.
 */
export function requestId(limitLength: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let id = c.req.header(HEADER);
    if (!id || id.length > limitLength || /[^\w\-=]/.test(id)) id = crypto.randomUUID();
    c.set('requestId', id);
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    if (outgoing) outgoing.setHeader(HEADER, id);
    else c.header(HEADER, id);
    await next();
  };
}
