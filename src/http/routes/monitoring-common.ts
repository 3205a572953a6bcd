import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Actor } from '../../monitoring/index.js';
import type { AppEnv } from '../env.js';

/** What the transaction-monitoring routes share: their OpenAPI tag, base path, plain answer and caller. */
export const tags = ['Transaction monitoring'];
export const BASE = '/api/v1/transaction-monitoring';
export const Message = z.object({ message: z.string() });

/** The route's caller as the monitoring domain knows it. */
export const actorOf = (c: Context<AppEnv>): Actor => {
  const p = c.get('principal');
  return { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') };
};
