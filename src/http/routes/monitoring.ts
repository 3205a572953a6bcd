import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import {
  decisionAnswer,
  candidateSources,
  DECISION_KEYS,
  InstantRequestSchema,
  SaveDeviceSchema,
  type InstantRequest,
} from '../../monitoring/index.js';
import { encodeNumbered } from '../../store/index.js';
import type { App, AppEnv } from '../env.js';
import { jsonBodyHandler } from '../json-body-handler.js';
import { actorOf, BASE, Message, tags } from './monitoring-common.js';
import { registerBlacklistRoutes } from './blacklists.js';
import { proofResponse } from './audit.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';
import { ValidationError } from '../../errors.js';

const notFound = { 404: errorResponse(404, 'Not found', 'Transaction not found') };

const Reason = z.object({
  code: z.string(),
  message: z.string(),
  severity: z.string().openapi({ description: 'low, medium, high or critical' }),
});
const FiredRule = z
  .object({
    id: z.string(),
    title: z.string(),
    score: z.string(),
    reason: Reason,
    forced: z.string().nullable(),
    observed: z
      .array(
        z.object({
          test: z.string(),
          holds: z.boolean().nullable(),
          values: z.record(z.string(), z.union([z.string(), z.boolean(), z.null()])),
        }),
      )
      .readonly(),
  })
  .openapi('FiredRule');
const DecisionSchema = z
  .object({
    transactionId: z.string(),
    riskScore: z.string().openapi({ description: 'Decimal string, 0-100', example: '0' }),
    action: z.object({
      result: z.string().openapi({ description: 'approved, review or rejected' }),
      code: z.number().int().openapi({ description: 'approved 1, review 2, rejected 3' }),
    }),
    ruleResult: z
      .array(FiredRule)
      .nullable()
      .openapi({ description: 'null when no rule fired; otherwise each fired rule with the values behind each test' }),
    reason: Reason,
    missingFeatures: z.array(z.string()).optional().openapi({
      description:
        'The request fields the rules read that the request lacked (absent or null); absent when none. Beyond the interface: /instant sends it only with ?missingFeatures=true; a stored decision always has it',
    }),
  })
  .openapi('TransactionDecision');

/** A review: the amount is over the customer's limit and the hour's outflow is large (the example request, a larger amount). */
const DECISION_EXAMPLE: z.input<typeof DecisionSchema> = {
  transactionId: '6b09afa0-21fa87b625fa1cf3',
  riskScore: '70',
  action: { result: 'review', code: 2 },
  ruleResult: [
    {
      id: 'LIMIT_INDIVIDUAL',
      title: 'Amount above the individual transaction limit',
      score: '50',
      reason: { code: 'LIM001', message: "The amount is above the customer's individual transaction limit", severity: 'high' },
      forced: null,
      observed: [
        {
          test: 'transactionData.amount > limits.individualTransactionLimit',
          holds: true,
          values: { 'transactionData.amount': '6000000', 'limits.individualTransactionLimit': '5000000' },
        },
      ],
    },
    {
      id: 'VEL_USER_SUM_1H',
      title: 'Large hourly outflow by one user',
      score: '20',
      reason: { code: 'VEL005', message: 'NGN 2,000,000 or more sent by the user within an hour', severity: 'medium' },
      forced: null,
      observed: [
        {
          test: 'sum(transactionData.amount by user over 1 hour) >= 2000000',
          holds: true,
          values: { 'sum(transactionData.amount by user over 1 hour)': '6000000' },
        },
      ],
    },
  ],
  reason: { code: 'LIM001', message: "The amount is above the customer's individual transaction limit", severity: 'high' },
  missingFeatures: ['anonymizedUserData.age'],
};

const INSTANT_EXAMPLE: InstantRequest = {
  transactionData: {
    reference: 'NIP-000123',
    amount: 25000,
    type: 'debit',
    currency: 'NGN',
    balanceBefore: 400000,
    transactionDate: '2026-01-01T10:15:00.000Z',
    channel: 'bank transfer',
    narration: 'school fees',
    senderAccount: '0123456789',
    receiverAccount: '9876543210',
    isExternalPayment: false,
  },
  device: { deviceId: 'dev-ada-1', manufacturer: 'Samsung', name: 'Galaxy A14', osName: 'Android', osVersion: '13' },
  anonymizedUserData: { uniqueId: 'user-ada', email: 'ada.obi@example.com', country: 'NG', isIdentityVerified: true },
  screeningData: { senderName: 'Ada Obi', receiverName: 'Chinedu Okeke' },
  limits: { dailyLimit: 10000000, overdraftLimit: 0, individualTransactionLimit: 5000000 },
  ipAddress: '102.89.1.10',
};

const instant = createRoute({
  method: 'post',
  path: `${BASE}/instant`,
  tags,
  summary: 'Instant risk decision for a transaction (idempotent per transactionData.reference)',
  security,
  // By reference, not as a zod schema: the handler validates the body itself (see jsonBodyHandler).
  // A plain parameter, so that no query validator runs on the hot path: the handler reads it itself.
  parameters: [
    {
      name: 'missingFeatures',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'] },
      description:
        'true: the answer also lists missingFeatures, the fields the rules read that the request lacked (the stored decision always keeps them)',
    },
  ],
  request: {
    body: {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/InstantRequest' }, example: INSTANT_EXAMPLE } },
      required: true,
    },
  },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), data: DecisionSchema }),
      'The decision (the stored one when the reference was already decided)',
      { message: 'Transaction processed successfully', data: DECISION_EXAMPLE },
    ),
    ...errorResponses,
    409: errorResponse(
      409,
      'The reference was already used with a different body',
      'transactionData.reference NIP-000123 was already used for a different transaction',
    ),
  },
});

const getTransaction = createRoute({
  method: 'get',
  path: `${BASE}/transactions/{transactionId}`,
  tags,
  summary: 'A stored decision with its request, the features it used and the ruleset version',
  security,
  request: { params: z.object({ transactionId: z.string() }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: z.record(z.string(), z.unknown()) }), 'The stored decision', {
      message: 'Transaction fetched',
      data: {
        ...DECISION_EXAMPLE,
        reference: 'NIP-000123',
        decidedAt: '2026-11-27T15:38:35.165Z',
        rulesetVersion: 'sha256:3893e61bb3445bdc',
        caseId: '6b09a3f8f77bd077fca3f7b1',
        features: {
          velocity: { 'sum(transactionData.amount by user over 1 hour)': '6000000' },
          lists: { 'blacklist.users:user-ada': false, 'blacklist.accounts:9876543210': false },
          firstSeen: {},
          lastSeen: {},
          screening: { 'sanctions:Chinedu Okeke': '0' },
          ipCountries: { '102.89.1.10': 'NG' },
          blacklistHits: [],
        },
        request: INSTANT_EXAMPLE,
      },
    }),
    ...errorResponses,
    ...notFound,
  },
});

const transactionProof = createRoute({
  method: 'get',
  path: `${BASE}/transactions/{transactionId}/proof`,
  tags,
  summary: "A decision's event as stored, with an inclusion proof against the latest signed tree head",
  security,
  request: { params: z.object({ transactionId: z.string() }) },
  responses: {
    ...proofResponse('The decision', {
      streamId: 'tm-tx-biz_6b09a3f760a92ed3bc904b74-6b09a3fb-e3277b8095e450e4',
      type: 'TransactionDecided',
      schemaVersion: 4,
      // As stored (docs/monitoring.md, How a decision is stored): keys numbered, the reason by its rule, features left
      // out here.
      data: encodeNumbered(DECISION_KEYS, {
        transactionId: DECISION_EXAMPLE.transactionId,
        request: INSTANT_EXAMPLE,
        decidedAt: '2026-11-27T15:38:35.165Z',
        rulesetVersion: 'sha256:3893e61bb3445bdc',
        decision: {
          riskScore: DECISION_EXAMPLE.riskScore,
          action: DECISION_EXAMPLE.action,
          ruleResult: DECISION_EXAMPLE.ruleResult,
          reason: 'LIMIT_INDIVIDUAL',
        },
        caseId: '6b09a3f8f77bd077fca3f7b1',
      }),
    }),
    ...errorResponses,
    ...notFound,
    409: errorResponse(409, 'The log was altered', 'the event at position 24 is not the one the signed tree holds: the log was altered'),
  },
});

const saveDevice = createRoute({
  method: 'post',
  path: `${BASE}/customers/device`,
  tags,
  summary: "Save a customer's device (it then counts as known for anonymizedUserData.uniqueId = customerId)",
  security,
  request: {
    body: jsonBody(SaveDeviceSchema, {
      customerId: 'user-ada',
      device: { deviceId: 'dev-ada-1', manufacturer: 'Samsung', model: 'SM-A145F', name: 'Galaxy A14', osName: 'Android', osVersion: '13' },
    }),
  },
  responses: {
    200: jsonResponse(Message, 'Saved (saving the same details again is a no-op)', { message: 'Device saved successfully' }),
    ...errorResponses,
  },
});

const backtest = createRoute({
  method: 'post',
  path: `${BASE}/rules/backtest`,
  tags,
  summary: "Replay this business's stored decisions through candidate rules",
  security,
  request: {
    body: jsonBody(
      z.strictObject({
        files: z.record(z.string(), z.string()).openapi({ description: 'NAME.rules and lists/NAME.txt file contents by name' }),
        from: z.iso.datetime({ offset: true }).optional(),
        to: z.iso.datetime({ offset: true }).optional(),
      }),
      {
        files: {
          'limits.rules':
            'rule LARGE_TRANSFER "Large transfer"\n  when transactionData.amount > 5_000_000\n  score 40\n  reason LIM009 medium "A transfer above 5 million"\nend\n',
          'decide.rules': 'decide\n  review at 40\n  otherwise approved\nend\n',
        },
        from: '2026-01-01T00:00:00Z',
        to: '2026-02-01T00:00:00Z',
      },
    ),
  },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: z.record(z.string(), z.unknown()) }), 'Backtest report', {
      message: 'Backtest completed',
      data: {
        candidateVersion: 'sha256:75c80e37a6949e4a',
        decisions: 1,
        changed: 1,
        transitions: { 'review→approved': 1 },
        ruleHits: {
          LIMIT_INDIVIDUAL: { current: 1, candidate: 0 },
          VEL_USER_SUM_1H: { current: 1, candidate: 0 },
          LARGE_TRANSFER: { current: 0, candidate: 0 },
        },
        samples: {
          'review→approved': [
            {
              reference: 'NIP-000123',
              decidedAt: '2026-11-27T15:38:35.165Z',
              currentFired: ['LIMIT_INDIVIDUAL', 'VEL_USER_SUM_1H'],
              candidateFired: [],
              candidateRiskScore: '0',
            },
          ],
        },
      },
    }),
    ...errorResponses,
  },
});

export function registerMonitoringRoutes(app: App, engine: Engine): void {
  // As JSON Schema from zod itself: under tsx, @hono/zod-openapi may extend another copy of zod than the domain's.
  const { $schema: _, ...instantBody } = z.toJSONSchema(InstantRequestSchema, { io: 'input', unrepresentable: 'any' });
  app.openAPIRegistry.registerComponent('schemas', 'InstantRequest', instantBody as never);
  // engine.monitoring.decide validates as the schema does (precompiled, zod's messages on failure).
  app.openapi(
    instant,
    jsonBodyHandler<AppEnv>(async (c, body) => {
      const asked = c.req.query('missingFeatures');
      if (asked !== undefined && asked !== 'true' && asked !== 'false')
        throw new ValidationError(`missingFeatures must be true or false, got ${JSON.stringify(asked.slice(0, 20))}`, 'missingFeatures');
      const decision = await engine.monitoring.decide(actorOf(c), body);
      const data = decisionAnswer(decision, asked === 'true');
      return c.json({ message: 'Transaction processed successfully', data }, 200);
    }),
  );
  app.openapi(getTransaction, async (c) => {
    const data = await engine.monitoring.getTransaction(c.get('principal').businessId, c.req.valid('param').transactionId);
    return c.json({ message: 'Transaction fetched', data }, 200);
  });
  app.openapi(transactionProof, async (c) => {
    const position = await engine.monitoring.decisionPosition(c.get('principal').businessId, c.req.valid('param').transactionId);
    return c.json({ message: 'Proof fetched', data: await engine.audit.prove(position) }, 200);
  });
  app.openapi(saveDevice, async (c) => {
    const { changed } = await engine.monitoring.saveDevice(actorOf(c), c.req.valid('json'));
    return c.json({ message: changed ? 'Device saved successfully' : 'Device already saved' }, 200);
  });
  app.openapi(backtest, async (c) => {
    const { files, from, to } = c.req.valid('json');
    const report = await engine.monitoring.backtest(c.get('principal').businessId, candidateSources(files), { from, to });
    return c.json({ message: 'Backtest completed', data: report as unknown as Record<string, unknown> }, 200);
  });
  registerBlacklistRoutes(app, engine);
}
