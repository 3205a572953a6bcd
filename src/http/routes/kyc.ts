import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { NotFoundError } from '../../errors.js';
import { COMPANY_TYPES, CompanyRegistryRecordSchema } from '../../registry/index.js';
import type { App } from '../env.js';
import { jsonBody, jsonResponse, MessageResponse, security } from '../schemas.js';

const CompanyRegistryRecord = CompanyRegistryRecordSchema;

const lookupCompany = createRoute({
  method: 'post',
  path: '/api/v1/kyc/cac',
  tags: ['KYC'],
  summary: 'Look up a company registry record by registration number',
  security,
  request: {
    body: jsonBody(
      z.strictObject({
        rcNumber: z.string().trim().min(1).openapi({ example: '1002655' }),
        companyName: z.string().trim().optional().openapi({ description: 'Informative; the lookup is by rcNumber and companyType' }),
        companyType: z.enum(COMPANY_TYPES).default('RC'),
      }),
      { rcNumber: '1002655', companyName: 'Example Foods Limited', companyType: 'RC' },
    ),
  },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: CompanyRegistryRecord }), 'The registry record'),
    400: jsonResponse(MessageResponse, 'Invalid input, e.g. "rcNumber is required"'),
    401: jsonResponse(MessageResponse, 'Invalid API credentials'),
    404: jsonResponse(MessageResponse, 'No company with this number and type'),
  },
});

export function registerKycRoutes(app: App, engine: Engine): void {
  app.openapi(lookupCompany, async (c) => {
    const { rcNumber, companyType } = c.req.valid('json');
    const record = await engine.registry.company(companyType, rcNumber);
    if (!record) throw new NotFoundError(`No ${companyType} company found with number ${rcNumber}`);
    return c.json({ message: 'Company found', data: record }, 200);
  });
}
