import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Engine } from '../../engine.js';
import { REPORT_KINDS, REPORT_STATUSES, type ReportActor, ReportingSettingsSchema } from '../../reports/index.js';
import type { App, AppEnv } from '../env.js';
import { pagingQuery } from '../paging.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';

const BASE = '/api/v1/reports';
const tags = ['goAML reports'];
const Params = z.object({ id: z.string().openapi({ description: 'Report id' }) });

const Missing = z.object({ field: z.string(), message: z.string() });
const Report = z
  .object({
    id: z.string(),
    kind: z.enum(REPORT_KINDS),
    status: z.enum(REPORT_STATUSES),
    caseId: z.string().nullable(),
    date: z.string().nullable(),
    version: z.number().int(),
    correctionOf: z.string().nullable(),
    fiu: z.string(),
    transactionCount: z.number().int(),
    missingCount: z.number().int(),
    fiuReference: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ReportSummary');
const ReportView = Report.extend({
  transactionIds: z.array(z.string()),
  missing: z.array(Missing).openapi({ description: 'Mandatory goAML data the records lack, by element path: fill in, then redraft' }),
  approvedBy: z.string().nullable(),
  submittedVia: z.enum(['download', 'sent']).nullable(),
  rejectionReason: z.string().nullable(),
}).openapi('Report');

const summaryExample: z.input<typeof Report> = {
  id: '69a55898c750d94d67448d7e',
  kind: 'str',
  status: 'draft',
  caseId: '69a55897a1b2c3d4e5f60718',
  date: null,
  version: 1,
  correctionOf: null,
  fiu: 'nfiu',
  transactionCount: 1,
  missingCount: 0,
  fiuReference: null,
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
const viewExample: z.input<typeof ReportView> = {
  ...summaryExample,
  transactionIds: ['69a55898-368cbde0eabcf97e'],
  missing: [],
  approvedBy: null,
  submittedVia: null,
  rejectionReason: null,
};
const reportResponse = (description: string, message: string) =>
  jsonResponse(z.object({ message: z.string(), data: ReportView }), description, { message, data: viewExample });
const errors = {
  ...errorResponses,
  404: errorResponse(404, 'Report (or case) not found', 'Report not found'),
  409: errorResponse(
    409,
    'Not allowed in the report status (the message names it), or reporting is not configured',
    'A report that is draft cannot be submitted: it must be approved',
  ),
} as const;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day as YYYY-MM-DD');
const CreateReport = z.union([
  z.strictObject({
    caseId: z.string().min(1).openapi({ description: 'A case closed with the disposition reported' }),
    actionTaken: z.string().trim().min(1).max(8000).optional().openapi({ description: "goAML's <action>: what the business did" }),
    correctionOf: z.string().min(1).optional().openapi({ description: 'The rejected report of the case this one corrects' }),
  }),
  z.strictObject({
    type: z.literal('threshold'),
    date: day.openapi({ description: "The business's day whose transactions at or above the thresholds are reported" }),
    correctionOf: z.string().min(1).optional(),
  }),
]);

const UpdateReport = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('approve') }),
  z.strictObject({ action: z.literal('submit'), via: z.enum(['download', 'sent']).default('download') }),
  z.strictObject({ action: z.literal('acknowledge'), fiuReference: z.string().trim().min(1).max(255) }),
  z.strictObject({
    action: z.literal('reject'),
    reason: z.string().trim().min(1).max(8000),
    fiuReference: z.string().trim().min(1).max(255).optional(),
  }),
  z.strictObject({ action: z.literal('redraft') }),
]);

const Settings = ReportingSettingsSchema;
const settingsExample = {
  fiu: 'nfiu',
  rentityId: 1042,
  branch: 'Head office, Marina',
  reportingPerson: { firstName: 'Ngozi', lastName: 'Eze', email: 'mlro@acme.example', occupation: 'MLRO' },
  institution: { name: 'Acme Microfinance Bank', code: 'ACMENGLA', nonBank: false, country: 'NG' },
  currency: 'NGN',
  thresholds: { individual: '5000000', corporate: '10000000' },
  utcOffsetMinutes: 60,
};

const putSettings = createRoute({
  method: 'put',
  path: `${BASE}/settings`,
  tags,
  summary: "Set the business's goAML reporting settings: FIU, reporting entity, reporting person, thresholds",
  security,
  request: { body: jsonBody(Settings, settingsExample) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: z.unknown() }), 'Saved', {
      message: 'Reporting settings saved',
      data: settingsExample,
    }),
    ...errorResponses,
  },
});

const getSettings = createRoute({
  method: 'get',
  path: `${BASE}/settings`,
  tags,
  summary: "The business's goAML reporting settings (null when not set)",
  security,
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: z.unknown() }), 'Settings', {
      message: 'Reporting settings fetched',
      data: settingsExample,
    }),
    ...errorResponses,
  },
});

const createReport = createRoute({
  method: 'post',
  path: BASE,
  tags,
  summary: 'Draft an STR from a case closed as reported, or the threshold report of a day',
  security,
  request: { body: jsonBody(CreateReport, { caseId: '6b0970a1c1d2e3f405060708', actionTaken: 'Account restricted pending review.' }) },
  responses: { 201: reportResponse('Drafted', 'Report drafted'), ...errors },
});

const listReports = createRoute({
  method: 'get',
  path: BASE,
  tags,
  summary: 'List reports, newest first',
  security,
  request: {
    query: pagingQuery.extend({
      kind: z.enum(REPORT_KINDS).optional(),
      status: z.enum(REPORT_STATUSES).optional(),
      caseId: z.string().optional(),
      date: day.optional(),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({ reports: z.array(Report), total: z.number(), page: z.number(), limit: z.number() }),
      }),
      'Reports',
      { message: 'Reports fetched', data: { reports: [summaryExample], total: 1, page: 1, limit: 20 } },
    ),
    ...errorResponses,
  },
});

const getReport = createRoute({
  method: 'get',
  path: `${BASE}/{id}`,
  tags,
  summary: 'A report: its status, transactions and the mandatory data it lacks',
  security,
  request: { params: Params },
  responses: { 200: reportResponse('The report', 'Report fetched'), ...errors },
});

const getXml = createRoute({
  method: 'get',
  path: `${BASE}/{id}/xml`,
  tags,
  summary: "The report's goAML XML, once it has every mandatory field and validates against its FIU's schema",
  security,
  request: { params: Params },
  responses: {
    200: {
      content: { 'application/xml': { schema: z.string(), example: '<?xml version="1.0" encoding="UTF-8"?>\n<report>…</report>\n' } },
      description: 'The goAML XML',
    },
    ...errors,
    400: errorResponse(
      400,
      'The report lacks mandatory data or does not validate (the message lists each field)',
      'The report lacks mandatory data: report.transaction[0].t_from_my_client.from_account.signatory[0].t_person.id_number (customer cust2 has no identification number)',
    ),
  },
});

const updateReport = createRoute({
  method: 'patch',
  path: `${BASE}/{id}`,
  tags,
  summary: 'Approve, submit, acknowledge (FIU reference), reject (reason) or redraft a report',
  security,
  request: { params: Params, body: jsonBody(UpdateReport, { action: 'acknowledge', fiuReference: 'NFIU-2026-000123' }) },
  responses: {
    200: reportResponse('Updated', 'Report updated'),
    ...errors,
    403: errorResponse(403, 'Four eyes: a second person approves', 'The report must be approved by a second person'),
  },
});

const actorOf = (c: Context<AppEnv>): ReportActor => {
  const p = c.get('principal');
  return { businessId: p.businessId, userId: p.userId, apiKey: p.apiKey, requestId: c.get('requestId') };
};

export function registerReportRoutes(app: App, engine: Engine): void {
  app.openapi(putSettings, async (c) => {
    const saved = await engine.reports.configure(actorOf(c), c.req.valid('json'));
    return c.json({ message: 'Reporting settings saved', data: saved }, 200);
  });
  app.openapi(getSettings, async (c) => {
    const found = await engine.reports.settings(c.get('principal').businessId);
    return c.json({ message: 'Reporting settings fetched', data: found ?? null }, 200);
  });
  app.openapi(createReport, async (c) => {
    const body = c.req.valid('json');
    const actor = actorOf(c);
    const drafted =
      'caseId' in body
        ? await engine.reports.draftStr(actor, { caseId: body.caseId, action: body.actionTaken, correctionOf: body.correctionOf })
        : await engine.reports.draftThreshold(actor, { date: body.date, correctionOf: body.correctionOf });
    return c.json({ message: 'Report drafted', data: drafted }, 201);
  });
  app.openapi(listReports, async (c) => {
    const { page, limit, ...filters } = c.req.valid('query');
    const { reports, total } = await engine.reports.list(c.get('principal').businessId, filters, { page, limit });
    return c.json({ message: 'Reports fetched', data: { reports, total, page, limit } }, 200);
  });
  app.openapi(getReport, async (c) => {
    const found = await engine.reports.get(c.get('principal').businessId, c.req.valid('param').id);
    return c.json({ message: 'Report fetched', data: found }, 200);
  });
  app.openapi(getXml, async (c) => {
    const { id } = c.req.valid('param');
    const xml = await engine.reports.xml(c.get('principal').businessId, id);
    return c.body(xml, 200, {
      'Content-Type': 'application/xml; charset=utf-8',
      'Content-Disposition': `attachment; filename="goaml-${id}.xml"`,
    });
  });
  app.openapi(updateReport, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const actor = actorOf(c);
    const reports = engine.reports;
    const updated = await (() => {
      switch (body.action) {
        case 'approve':
          return reports.approve(actor, id);
        case 'submit':
          return reports.submit(actor, id, body.via);
        case 'acknowledge':
          return reports.acknowledge(actor, id, body.fiuReference);
        case 'reject':
          return reports.reject(actor, id, body.reason, body.fiuReference ?? null);
        case 'redraft':
          return reports.redraft(actor, id);
      }
    })();
    return c.json({ message: 'Report updated', data: updated }, 200);
  });
}
