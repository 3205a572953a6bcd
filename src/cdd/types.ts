// Shapes the due-diligence host returns (compliance-service-interface.md: Check, CddRequest, adverse media).
import type { ScreeningRecord } from '../name-matching/records.js';
import type { CorporateInput, IndividualInput, Owner, Person } from './schema.js';

export type CheckOutcome = 'success' | 'failed';

export interface CheckResult {
  name: string;
  result: CheckOutcome;
  note: string;
  status: 'completed';
  /** [submitted, found]; null where a side has no value. */
  values: [string | null, string | null];
  startDate: string;
  endDate: string;
}

export interface Check {
  checkId: string;
  results: CheckResult[];
}

export type Checks = Record<string, Check>;

/** Whom a check is about: the customer itself, or one of its persons (by the service-assigned uniqueId). */
export type SubjectRole = 'customer' | 'director' | 'signatory' | 'owner';
export interface Subject {
  role: SubjectRole;
  uniqueId: string;
  name: string;
}

export interface AdverseMediaMatch {
  _id: string;
  title: string;
  link: string;
  origin: string;
  snippet: string;
}

export interface AdverseMediaRecord {
  _id: string;
  query: string;
  completedAt: string;
  matches: AdverseMediaMatch[];
}

/** A match as a request holds it: the record plus whom it was found for. */
export type ScreeningMatch = ScreeningRecord & { subject: Subject };
export type AdverseMediaHit = AdverseMediaRecord & { subject: Subject };

export type MatchKind = 'pep' | 'sanctions' | 'adverseMedia';
export const MATCH_KINDS: readonly MatchKind[] = ['pep', 'sanctions', 'adverseMedia'];

export interface RequestMatches {
  pep: ScreeningMatch[];
  sanctions: ScreeningMatch[];
  /** null when the workflow runs no adverse-media check. */
  adverseMedia: AdverseMediaHit[] | null;
}

export type RequestStatus = 'not started' | 'in progress' | 'awaiting confirmation' | 'completed';

export interface WorkflowRef {
  _id: string;
  name: string;
  slug: string;
}

export interface RiskLevelEntry {
  request: string;
  riskScore: number;
  date: string;
}

export interface OverallRiskLevel {
  history: RiskLevelEntry[];
  request: string;
  riskScore: number;
}

export type RiskRating = 'low' | 'medium' | 'high';

export interface RiskFactor {
  rule: string;
  title: string;
  score: number;
  reason: string;
  tags: string[];
}

export interface CustomerRiskSummary {
  overallScore: number;
  overallDecision: number;
  overallRating: RiskRating;
  coverageStatus: 'computed';
  autoHighRiskCategories: string[];
  computedAt: string;
  /** Beyond the interface: each fired factor and its contribution, so a rating can be explained. */
  factors: RiskFactor[];
  rulesetVersion: string;
}

/** A stored person always carries its uniqueId. */
export type StoredPerson = Person & { uniqueId: string };
export type StoredOwner = Owner & { uniqueId: string };

/** The customer document as the log holds it: the input with every person's uniqueId assigned. */
export type CorporateDoc = Omit<CorporateInput, 'directors' | 'signatories' | 'ultimateBeneficialOwners'> & {
  directors?: StoredPerson[];
  signatories?: StoredPerson[];
  ultimateBeneficialOwners?: StoredOwner[];
};
export type CustomerDoc = IndividualInput | CorporateDoc;

/** A confirmed screening result, on the customer or on one of its persons. */
export interface Confirmation {
  id: string;
  confirmedAt: string;
  requestId: string;
  record: ScreeningRecord | AdverseMediaRecord;
}

export type Confirmations = Partial<Record<MatchKind, Confirmation>>;
