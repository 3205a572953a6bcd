/** Examples of the due-diligence answers: one individual customer, Ada Obi, through a standard workflow. */
import { pepRecordExample } from './screening-examples.js';

export const customerExample = {
  uniqueId: 'cust-0001',
  type: 'individual',
  firstName: 'Ada',
  lastName: 'Obi',
  email: 'ada.obi@example.org',
  phone: '+2348012345678',
  kycDocuments: [],
  isPep: false,
  isSanctioned: false,
  createdAt: '2026-11-27T15:38:39.731Z',
  updatedAt: '2026-11-27T15:38:39.867Z',
  pepConfirmedAt: null,
  pepId: null,
  sanctionConfirmedAt: null,
  sanctionId: null,
  adverseMediaConfirmedAt: null,
  adverseMediaId: null,
  pep: null,
  sanctions: null,
  adverseMedia: null,
  customerRiskSummary: {
    overallScore: 15,
    overallDecision: 0,
    overallRating: 'low',
    coverageStatus: 'computed',
    autoHighRiskCategories: [],
    computedAt: '2026-11-27T15:38:39.865Z',
    factors: [
      {
        rule: 'CR_INCOME_UNDECLARED',
        title: 'Income not declared',
        score: 10,
        reason: 'The customer declared no income',
        tags: ['income'],
      },
      {
        rule: 'CR_UNKNOWN_RELATIONSHIP',
        title: 'Relationship start not recorded',
        score: 5,
        reason: 'The start of the relationship is not recorded',
        tags: ['relationship'],
      },
    ],
    rulesetVersion: 'sha256:e8706b493790e478',
  },
};

export const customerReadExample = {
  customer: customerExample,
  customerRiskSummary: customerExample.customerRiskSummary,
  checks: {},
};

export const workflowsExample = [
  {
    slug: 'corporate-standard',
    name: 'Corporate standard due diligence',
    customerType: 'corporate',
    checks: ['tin', 'cac', 'sanctions', 'adverse media'],
    directors: ['bvn', 'pep', 'sanctions', 'adverse media'],
    signatories: ['bvn', 'pep'],
    owners: ['pep', 'sanctions'],
    threshold: 85,
    limit: 10,
    rescreenEveryDays: 180,
    _id: 'ad1ce55c3eedba27f543608a',
  },
];

export const requestsExample = [
  {
    _id: '6b09a3ff156c000b39c241e4',
    type: 'individual',
    workflow: {
      _id: '112fae756f8c5f435431208b',
      name: 'Individual standard due diligence',
      slug: 'individual-standard',
    },
    name: 'Ada Obi',
    status: 'completed',
    createdAt: '2026-11-27T15:38:39.936Z',
    overallRiskLevel: {
      history: [
        {
          request: '6b09a3ff156c000b39c241e4',
          riskScore: 15,
          date: '2026-11-27T15:38:40.135Z',
        },
      ],
      request: '6b09a3ff156c000b39c241e4',
      riskScore: 15,
    },
  },
];

export const schedulesExample = [
  {
    executionId: '6b09a3ffd44f8fac134a3e2d',
    name: 'Ada Obi',
    type: 'individual',
    status: 'in progress',
    workflowName: 'Individual standard due diligence',
    createdAt: '2026-11-27T15:38:39.936Z',
    customerUniqueId: 'cust-0001',
    workflowSlug: 'individual-standard',
    nextRunAt: '2027-02-25T15:38:39.935Z',
    lastRequestId: '6b09a3ff156c000b39c241e4',
  },
];

/** A request with one PEP match that no one has reviewed yet. */
export const matchesExample = {
  _id: '6b09a3ff156c000b39c241e4',
  type: 'individual',
  pep: [
    {
      ...pepRecordExample,
      reviewStatus: 'pending',
      reviewedBy: null,
      reviewedByName: null,
      reviewDate: null,
      reviewNote: null,
      confirmedAt: null,
      reviewHistory: [],
    },
  ],
  sanctions: [],
  adverseMedia: [],
};
