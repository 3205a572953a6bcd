// The blacklists' routes: add, remove and list each kind of entry, under the approvals policy where it gates them.
import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { BlacklistBodies, MonitoringService, type ListKind } from '../../monitoring/index.js';
import type { Context } from 'hono';
import type { App, AppEnv } from '../env.js';
import { pagingQuery } from '../paging.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';
import { actorOf, BASE, Message, tags } from './monitoring-common.js';
import { apiMaker, pending, pendingResponse } from './approvals.js';

/** Path segment, body field and message label of each blacklist. */
const BLACKLIST_EXAMPLES: Record<ListKind, string> = {
  users: 'user-bad',
  vasReceivers: '08031234567',
  devices: 'dev-bad',
  accounts: '0999999999',
};

const BLACKLISTS: readonly { list: ListKind; segment: string; field: string }[] = [
  { list: 'users', segment: 'blacklist-user', field: 'userId' },
  { list: 'vasReceivers', segment: 'blacklist-vas-receiver', field: 'receiver' },
  { list: 'devices', segment: 'blacklist-device', field: 'deviceId' },
  { list: 'accounts', segment: 'blacklist-account', field: 'accountNumber' },
];

function registerBlacklist(app: App, engine: Engine, { list, segment, field }: (typeof BLACKLISTS)[number]): void {
  const label = MonitoringService.listLabel(list);
  const add = createRoute({
    method: 'post',
    path: `${BASE}/${segment}`,
    tags,
    summary: `Blacklist a ${label.toLowerCase()} (adding a listed one again answers 200 and changes nothing)`,
    security,
    request: {
      body: jsonBody(BlacklistBodies[list], { [field]: BLACKLIST_EXAMPLES[list] } as z.input<(typeof BlacklistBodies)[typeof list]>),
    },
    responses: {
      200: jsonResponse(Message, 'Blacklisted', { message: `${label} blacklisted successfully` }),
      202: pendingResponse,
      ...errorResponses,
    },
  });
  const remove = createRoute({
    method: 'delete',
    path: `${BASE}/${segment}/{${field}}`,
    tags,
    summary: `Remove a ${label.toLowerCase()} from the blacklist (404 when not listed)`,
    security,
    request: { params: z.object({ [field]: z.string().min(1) }) },
    responses: {
      200: jsonResponse(Message, 'Removed', { message: `${label} removed from the blacklist` }),
      202: pendingResponse,
      ...errorResponses,
      404: errorResponse(404, 'Not listed', `${label} ${BLACKLIST_EXAMPLES[list]} is not on the blacklist`),
    },
  });
  const listRoute = createRoute({
    method: 'get',
    path: `${BASE}/${segment}`,
    tags,
    summary: `The blacklisted ${label.toLowerCase()}s, oldest first`,
    security,
    request: { query: pagingQuery },
    responses: {
      200: jsonResponse(
        z.object({
          message: z.string(),
          data: z.object({
            entries: z.array(z.object({ value: z.string(), addedAt: z.string(), addedBy: z.string().nullable() })),
            total: z.number(),
            page: z.number(),
            limit: z.number(),
          }),
        }),
        'Blacklist page',
        {
          message: `Blacklisted ${label.toLowerCase()}s fetched`,
          data: {
            entries: [{ value: BLACKLIST_EXAMPLES[list], addedAt: '2026-11-27T15:38:39.200Z', addedBy: 'api' }],
            total: 1,
            page: 1,
            limit: 20,
          },
        },
      ),
      ...errorResponses,
    },
  });
  /** The change as a four-eyes request when the business's policy puts it under them. */
  const gated = async (c: Context<AppEnv>, action: 'list.add' | 'list.remove', value: string) => {
    const businessId = c.get('principal').businessId;
    if (!(await engine.approvals.needsApproval(businessId, action))) return undefined;
    const row = await engine.approvals.request(businessId, await apiMaker(c, engine), {
      action,
      subject: { kind: 'list', id: list },
      summary: `${action === 'list.add' ? 'Add' : 'Remove'} ${value} ${action === 'list.add' ? 'to' : 'from'} the ${label.toLowerCase()} blacklist`,
      payload: { list, value },
      reason: '',
    });
    return pending(c, row);
  };
  app.openapi(add, async (c) => {
    const value = (c.req.valid('json') as Record<string, string>)[field]!;
    const waiting = await gated(c, 'list.add', value);
    if (waiting) return waiting;
    const { added } = await engine.monitoring.addToBlacklist(actorOf(c), list, value);
    return c.json({ message: added ? `${label} blacklisted successfully` : `${label} is already blacklisted` }, 200);
  });
  app.openapi(remove, async (c) => {
    const value = (c.req.valid('param') as Record<string, string>)[field]!;
    const waiting = await gated(c, 'list.remove', value);
    if (waiting) return waiting;
    await engine.monitoring.removeFromBlacklist(actorOf(c), list, value);
    return c.json({ message: `${label} removed from the blacklist` }, 200);
  });
  app.openapi(listRoute, async (c) => {
    const paging = c.req.valid('query');
    const { entries, total } = await engine.monitoring.listBlacklist(c.get('principal').businessId, list, paging);
    return c.json({ message: `Blacklisted ${label.toLowerCase()}s fetched`, data: { entries, total, ...paging } }, 200);
  });
}

export function registerBlacklistRoutes(app: App, engine: Engine): void {
  for (const blacklist of BLACKLISTS) registerBlacklist(app, engine, blacklist);
}
