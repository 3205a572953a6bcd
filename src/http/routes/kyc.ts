import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { NotFoundError } from '../../errors.js';
import { COMPANY_TYPES, CompanyRegistryRecordSchema } from '../../registry/index.js';
import type { App } from '../env.js';
import { jsonBody, jsonResponse, messageResponse, security } from '../schemas.js';

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
        rcNumber: z.string().trim().min(1).openapi({ example: '1000000' }),
        companyName: z.string().trim().optional().openapi({ description: 'Informative; the lookup is by rcNumber and companyType' }),
        companyType: z.enum(COMPANY_TYPES).default('RC'),
      }),
      { rcNumber: '1000000', companyName: 'Obudu Logistics Limited', companyType: 'RC' },
    ),
  },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: CompanyRegistryRecord }), 'The registry record', {
      message: 'Company found',
      data: {
        registrationNumber: '1000000',
        businessName: 'OBUDU LOGISTICS LIMITED',
        status: 'ACTIVE',
        classification: 'PRIVATE_COMPANY_LIMITED_BY_SHARES',
        registrationDate: '2003-09-11',
        headOfficeAddress: '13 Yankari Street, PORT HARCOURT',
        branchAddress: null,
        state: 'RIVERS',
        city: 'PORT HARCOURT',
        lga: 'OBIO/AKPOR',
        companyEmail: 'info@obudulogisticslimited.example',
        entityType: 'RC',
        statusMore: null,
        affiliates: 1,
        affiliatesData: [
          {
            surname: 'LAWAL',
            firstname: 'CHINEDU',
            othername: 'KELECHI',
            gender: 'MALE',
            email: 'chinedu.lawal@mail.example',
            phoneNumber: '08036932674',
            dateOfBirth: '1965-06-07',
            dateOfAppointment: '2003-09-11',
            nationality: 'NIGERIAN',
            address: '26 Lagoon Close, PORT HARCOURT',
            occupation: 'BUSINESS',
            affiliateType: 'DIRECTOR',
            idType: 'NIN',
          },
        ],
      },
    }),
    400: messageResponse('Invalid input; the message names the field', 'rcNumber is required'),
    401: messageResponse('Invalid API credentials', 'Invalid API credentials'),
    404: messageResponse('No company with this number and type', 'No RC company found with number 1002655'),
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
