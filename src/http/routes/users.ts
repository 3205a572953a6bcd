import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { pagingQuery } from '../paging.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';

const User = z
  .object({ _id: z.string(), firstName: z.string(), lastName: z.string(), email: z.string(), role: z.string(), createdAt: z.string() })
  .openapi('User');

const userExample = {
  _id: '6b09a3f85084289ba7ebb493',
  firstName: 'Ngozi',
  lastName: 'Eze',
  email: 'ngozi.eze@example.com',
  role: 'investigator',
  createdAt: '2026-11-27T15:38:32.193Z',
};

const CreateUser = z.object({
  firstName: z.string().trim().min(1),
  lastName: z.string().trim().min(1),
  email: z.email(),
  role: z.string().trim().min(1).openapi({ example: 'investigator' }),
});

const createUser = createRoute({
  method: 'post',
  path: '/api/v1/users',
  tags: ['Users'],
  summary: 'Create a user who acts on cases',
  security,
  request: { body: jsonBody(CreateUser, { firstName: 'Ngozi', lastName: 'Eze', email: 'ngozi.eze@example.com', role: 'investigator' }) },
  responses: {
    201: jsonResponse(z.object({ message: z.string(), data: User }), 'Created', { message: 'User created', data: userExample }),
    ...errorResponses,
    409: errorResponse(409, 'Email already used in this business', 'a user with email ngozi.eze@example.com already exists'),
  },
});

const listUsers = createRoute({
  method: 'get',
  path: '/api/v1/users',
  tags: ['Users'],
  summary: 'List the users of the business',
  security,
  request: { query: pagingQuery },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), data: z.object({ users: z.array(User), total: z.number(), page: z.number(), limit: z.number() }) }),
      'Users',
      { message: 'Users fetched', data: { users: [userExample], total: 1, page: 1, limit: 20 } },
    ),
    ...errorResponses,
  },
});

const getUser = createRoute({
  method: 'get',
  path: '/api/v1/users/{id}',
  tags: ['Users'],
  summary: 'Fetch one user',
  security,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: User }), 'User', { message: 'User fetched', data: userExample }),
    ...errorResponses,
  },
});

export function registerUserRoutes(app: App, engine: Engine): void {
  app.openapi(createUser, async (c) => {
    const p = c.get('principal');
    const user = await engine.users.create(
      { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') },
      c.req.valid('json'),
    );
    return c.json({ message: 'User created', data: user }, 201);
  });
  app.openapi(listUsers, async (c) => {
    const paging = c.req.valid('query');
    const { users, total } = await engine.users.list(c.get('principal').businessId, paging);
    return c.json({ message: 'Users fetched', data: { users, total, ...paging } }, 200);
  });
  app.openapi(getUser, async (c) => {
    const user = await engine.users.get(c.get('principal').businessId, c.req.valid('param').id);
    return c.json({ message: 'User fetched', data: user }, 200);
  });
}
