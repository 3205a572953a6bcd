// The field schema customer-risk rules are checked and compiled against (rules/customer-risk/*.rules).
// Inputs are derived from the customer document and its confirmed screening results by inputs.ts.
import type { FieldType, Schema } from '../../rules/index.js';

export const CUSTOMER_RISK_FIELDS: Record<string, FieldType> = {
  'customer.type': 'string',
  'customer.countryOfResidence': 'string',
  'customer.nationality': 'string',
  'customer.countryOfIncorporation': 'string',
  'customer.occupation': 'string',
  'customer.employmentStatus': 'string',
  'customer.industryType': 'string',
  'customer.natureOfBusiness': 'string',
  'customer.channel': 'string',
  'customer.customerSegment': 'string',
  'customer.kycLevel': 'string',
  'customer.sourceOfFunds': 'string',
  'customer.politicalPosition': 'boolean',
  'customer.declaredPep': 'boolean',
  'customer.pepConfirmed': 'boolean',
  'customer.sanctionConfirmed': 'boolean',
  'customer.adverseMediaConfirmed': 'boolean',
  'customer.biometricVerified': 'boolean',
  'customer.relationshipStartDate': 'timestamp',
  /** Yearly income of an individual (annualIncome, else 12 × monthlyIncome) or revenue of a company. */
  'customer.annualIncome': 'decimal',
  /** Yearly turnover a company declares. */
  'customer.annualTurnover': 'decimal',
  /** Sum of the average balances of all accounts. */
  'customer.totalAverageBalance': 'decimal',
  'customer.accountCount': 'integer',
  'customer.hasDomiciliaryAccount': 'boolean',
  'customer.hasNonNairaAccount': 'boolean',
  'persons.pepConfirmed': 'integer',
  'persons.sanctionConfirmed': 'integer',
  'persons.adverseMediaConfirmed': 'integer',
  'persons.declaredPep': 'integer',
  'persons.foreignNationals': 'integer',
};

export const customerRiskSchema: Schema = {
  name: 'customer',
  fields: CUSTOMER_RISK_FIELDS,
  engineLists: {},
  velocityKeys: {},
  firstSeenPairs: {},
  contextFeatures: new Set(['clock']),
  // overallDecision is the code: 0 low, 1 medium, 2 high.
  actions: [
    { name: 'low', code: 0 },
    { name: 'medium', code: 1 },
    { name: 'high', code: 2 },
  ],
  maxWindowMs: 0,
  utcOffsetMinutes: 60,
};
