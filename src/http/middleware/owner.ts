import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import type { Metrics } from '../../metrics.js';
import { decisionSubject, type PartitionLeases, type PartitionOwner, type SubjectFields } from '../../partitions/index.js';
import type { AppEnv } from '../env.js';

/** On every instant answer: the node that decided it, so that routing shows from outside. */
export const DECIDED_BY = 'X-Decided-By';
/** On a request one node sends on to another: the sender. A request bearing it is decided where it arrives. */
export const FORWARDED_BY = 'X-Forwarded-By';
/** Longer than any decision takes; past it the owner counts as unreachable and this node decides. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Headers of one connection, not of the request or answer; the body's length and coding are set anew. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'content-encoding', 'upgrade'];
const JSON_TYPE = /^application\/([a-z-.]+\+)?json/i;

/**
 * The instant route's front: a decision whose partition another live node leases is sent on to it, with the
 * caller's headers and body, and its answer returned as it came; any other is decided here. An owner that cannot
 * be reached (refused, reset, timed out) leaves the decision to this node: it follows the whole log, the control
 * fence keeps lists exact, and the reference's idempotency holds across nodes should the owner have decided it
 * after all. Without leases (SQLite, or no NODE_URL) every decision is this node's.
 */
export function decideAtOwner(nodeId: string, metrics: Metrics, leases?: PartitionLeases): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (leases && !c.req.header(FORWARDED_BY)) {
      const owner = await ownerOf(c, leases);
      if (owner) {
        try {
          const answer = await forward(c, owner, nodeId);
          metrics.decisionsForwarded.inc({ outcome: 'answered' });
          return answer;
        } catch (err) {
          metrics.decisionsForwarded.inc({ outcome: 'unreachable' });
          c.get('logger').warn({ err, owner: owner.nodeId, url: owner.url }, 'partition owner unreachable: deciding here');
        }
      }
    }
    // Straight onto the Node response, as request-id.ts does: a Headers object on every answer costs more.
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    if (outgoing) outgoing.setHeader(DECIDED_BY, nodeId);
    else c.header(DECIDED_BY, nodeId);
    await next();
  };
}

/** The other node owning the request's subject; none for a body the route itself will refuse. */
async function ownerOf(c: Context<AppEnv>, leases: PartitionLeases): Promise<PartitionOwner | undefined> {
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return undefined;
  }
  // The route validates this very object (json-body-handler.ts) rather than parse the text again.
  c.set('jsonBody', body);
  if (!hasSubject(body)) return undefined;
  return leases.ownerElsewhere(c.get('principal').businessId, decisionSubject(body));
}

const optionalText = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';

function hasSubject(body: unknown): body is SubjectFields {
  const b = body as {
    transactionData?: { reference?: unknown; senderAccount?: unknown };
    anonymizedUserData?: { uniqueId?: unknown };
  } | null;
  if (typeof b?.transactionData?.reference !== 'string' || !optionalText(b.transactionData.senderAccount)) return false;
  const user = b.anonymizedUserData;
  return user === undefined || user === null || (typeof user === 'object' && optionalText(user.uniqueId));
}

async function forward(c: Context<AppEnv>, owner: PartitionOwner, nodeId: string): Promise<Response> {
  const url = new URL(c.req.url);
  const headers = new Headers(c.req.raw.headers);
  for (const name of HOP_BY_HOP) headers.delete(name);
  headers.set(FORWARDED_BY, nodeId);
  headers.set('X-Request-Id', c.get('requestId'));
  const res = await fetch(new URL(url.pathname + url.search, owner.url), {
    method: c.req.method,
    headers,
    body: await c.req.text(),
    signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
  });
  const body = await res.arrayBuffer();
  const answer = new Headers(res.headers);
  for (const name of HOP_BY_HOP) answer.delete(name);
  return new Response(body, { status: res.status, headers: answer });
}
