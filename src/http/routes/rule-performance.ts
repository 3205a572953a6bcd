import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { errorResponses, jsonResponse, security } from '../schemas.js';

const Day = z.string().openapi({ description: 'A UTC day, YYYY-MM-DD' });

const RuleFigures = z
  .object({
    ruleId: z.string(),
    hits: z.number().int().openapi({ description: 'Decisions the rule fired on' }),
    alerts: z.number().int().openapi({ description: 'Alerts raised by decisions it fired on (decisions not approved)' }),
    cases: z.number().int().openapi({ description: "Cases its alerts joined, counted in the period of the rule's first alert in each" }),
    closed: z.number().int(),
    dispositions: z.record(z.string(), z.number().int()).openapi({ description: 'Closed cases by disposition' }),
    truePositives: z.number().int().openapi({ description: 'Closed as reported or customer exited' }),
    precision: z.string().nullable().openapi({ description: 'truePositives / closed, a decimal to 4 places; null while none is closed' }),
    strs: z.number().int().openapi({ description: 'Cases with an STR submitted to the FIU' }),
    strShare: z.string().nullable().openapi({ description: 'strs / cases, a decimal to 4 places' }),
    medianHoursToClose: z.string().nullable().openapi({ description: 'Median hours from opening to closing, a decimal to 2 places' }),
  })
  .openapi('RuleFigures');

const performance = createRoute({
  method: 'get',
  path: '/api/v1/transaction-monitoring/rules/performance',
  tags: ['Transaction monitoring'],
  summary: "Each rule's hits, alerts, cases, dispositions, STRs and time to close over a period",
  description:
    'A case with alerts from several rules counts in full for each of them. Days are UTC; `to` defaults to today, `from` to 29 days before `to`; a period spans at most 366 days.',
  security,
  request: { query: z.object({ from: Day.optional(), to: Day.optional() }) },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({
          from: Day,
          to: Day,
          rules: z.array(RuleFigures),
          days: z.array(z.object({ day: Day, ruleId: z.string(), hits: z.number().int(), alerts: z.number().int() })),
        }),
      }),
      'Figures per rule, and hits and alerts per rule and day',
      {
        message: 'Rule performance fetched',
        data: {
          from: '2026-03-01',
          to: '2026-03-30',
          rules: [
            {
              ruleId: 'VEL_USER_10M',
              hits: 41,
              alerts: 12,
              cases: 9,
              closed: 8,
              dispositions: { 'false positive': 6, reported: 1, 'customer exited': 1, 'no further action': 0 },
              truePositives: 2,
              precision: '0.25',
              strs: 1,
              strShare: '0.1111',
              medianHoursToClose: '5.5',
            },
          ],
          days: [{ day: '2026-03-01', ruleId: 'VEL_USER_10M', hits: 2, alerts: 1 }],
        },
      },
    ),
    ...errorResponses,
  },
});

export function registerRulePerformanceRoutes(app: App, engine: Engine): void {
  app.openapi(performance, async (c) => {
    const data = await engine.rulePerformance.report(c.get('principal').businessId, c.req.valid('query'));
    return c.json({ message: 'Rule performance fetched', data }, 200);
  });
}
