import type { Context, Env, Handler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { checkWellFormed } from '../validation-messages.js';

/** The content types @hono/zod-openapi's media-type gate lets through to a route's JSON validator (its regex). */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

const unsupported = () => new HTTPException(415, { message: 'Unsupported Media Type' });

/**
 * The handler of a route that validates its JSON body itself, with a precompiled acceptor, instead of through the
 * validators @hono/zod-openapi puts on a route whose body is a zod schema (they run zod with safeParseAsync, which
 * skips zod's compiled fast path). Such a route declares its body by reference to a registered component, so the
 * OpenAPI document describes it in full and no validator runs. `handle` gets the parsed body and must validate it
 * as the schema does, with the same errors. Every other request is answered as that gate and validator answer it:
 * a body of another type (or of none named) is 415; no body and no type is validated as an empty object; a body
 * holding ill-formed Unicode is 400 naming the field, as the validation hook answers.
 */
export const jsonBodyHandler =
  <E extends Env & { Variables: { jsonBody: unknown } }>(handle: (c: Context<E>, body: unknown) => Promise<Response>): Handler<E> =>
  async (c) => {
    const type = c.req.header('content-type');
    if (type === undefined) {
      const bytes = c.req.raw.body === null ? 0 : (await c.req.arrayBuffer()).byteLength;
      if (bytes > 0) throw unsupported();
      return handle(c, {});
    }
    if (!JSON_REQUEST.test(type)) throw unsupported();
    // Parsed already by the forwarding middleware (owner.ts) when the node leases partitions: not parsed twice.
    let body: unknown = c.get('jsonBody');
    if (body === undefined)
      try {
        body = await c.req.json();
      } catch {
        throw new HTTPException(400, { message: 'Malformed JSON in request body' });
      }
    checkWellFormed(body);
    return handle(c, body);
  };
