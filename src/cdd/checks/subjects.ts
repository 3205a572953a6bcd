// Who a workflow's checks run on, and what each subject submitted: the customer, then its directors,
// signatories and owners, in document order, so a resumed request walks the same list.
import { personName } from '../names.js';
import type { CustomerDoc, Subject } from '../types.js';
import type { CheckId, PersonCheckId, WorkflowPlan } from '../workflows.js';
import { lookupTable } from '../../own-keys.js';

export type IdentityCheckId = 'bvn' | 'nin' | 'voters card' | 'passport' | 'drivers licence' | 'tin';

export interface SubjectFacts {
  subject: Subject;
  kind: 'person' | 'company';
  firstName?: string;
  middleName?: string;
  lastName?: string;
  dob?: string;
  gender?: string;
  country?: string;
  numbers: Partial<Record<IdentityCheckId, string>>;
  registrationNumber?: string;
}

export interface PlannedCheck {
  facts: SubjectFacts;
  checkId: CheckId;
}

/** kycDocuments types and identificationType values as clients send them, mapped to check ids. */
const DOCUMENT_TYPES = lookupTable<IdentityCheckId>({
  bvn: 'bvn',
  nin: 'nin',
  passport: 'passport',
  voters_card: 'voters card',
  'voters card': 'voters card',
  drivers_license: 'drivers licence',
  drivers_licence: 'drivers licence',
  'drivers licence': 'drivers licence',
  tax_id: 'tin',
  tin: 'tin',
});

export const documentCheck = (type: string | undefined): IdentityCheckId | undefined =>
  type ? DOCUMENT_TYPES[type.trim().toLowerCase()] : undefined;

function customerFacts(c: CustomerDoc): SubjectFacts {
  const subject: Subject = { role: 'customer', uniqueId: c.uniqueId, name: '' };
  const numbers: SubjectFacts['numbers'] = {};
  for (const d of c.kycDocuments ?? []) {
    const id = documentCheck(d.type);
    if (id && d.documentNumber && !d.personUniqueId) numbers[id] ??= d.documentNumber;
  }
  if (c.type === 'corporate') {
    if (c.taxIdentificationNumber) numbers.tin = c.taxIdentificationNumber;
    return {
      subject: { ...subject, name: c.businessName ?? '' },
      kind: 'company',
      country: c.countryOfIncorporation,
      numbers,
      registrationNumber: c.registrationNumber,
    };
  }
  const own: SubjectFacts['numbers'] = {
    bvn: c.bvnNumber,
    nin: c.ninNumber,
    'voters card': c.votersCardNumber,
    passport: c.passportNumber,
    'drivers licence': c.driversLicenseNumber,
    tin: c.taxId,
  };
  for (const [k, v] of Object.entries(own)) if (v) numbers[k as IdentityCheckId] = v;
  return {
    subject: { ...subject, name: personName(c) },
    kind: 'person',
    firstName: c.firstName,
    middleName: c.middleName,
    lastName: c.lastName,
    dob: c.dob,
    gender: c.gender,
    country: c.nationality ?? c.countryOfResidence,
    numbers,
  };
}

interface PersonLike {
  uniqueId: string;
  firstName?: string;
  middleName?: string;
  lastName?: string;
  dob?: string;
  gender?: string;
  nationality?: string;
  identificationType?: string;
  identificationNumber?: string;
}

function personFacts(role: Subject['role'], p: PersonLike, documents: CustomerDoc['kycDocuments']): SubjectFacts {
  const numbers: SubjectFacts['numbers'] = {};
  const own = documentCheck(p.identificationType);
  if (own && p.identificationNumber) numbers[own] = p.identificationNumber;
  for (const d of documents ?? []) {
    const id = documentCheck(d.type);
    if (id && d.documentNumber && d.personUniqueId === p.uniqueId) numbers[id] ??= d.documentNumber;
  }
  return {
    subject: { role, uniqueId: p.uniqueId, name: personName(p) },
    kind: 'person',
    firstName: p.firstName,
    middleName: p.middleName,
    lastName: p.lastName,
    dob: p.dob,
    gender: p.gender,
    country: p.nationality,
    numbers,
  };
}

export function planChecks(c: CustomerDoc, plan: WorkflowPlan): PlannedCheck[] {
  const steps: PlannedCheck[] = [];
  const customer = customerFacts(c);
  for (const checkId of plan.checks) steps.push({ facts: customer, checkId });
  if (c.type !== 'corporate') return steps;
  const groups: [Subject['role'], PersonLike[], readonly PersonCheckId[]][] = [
    ['director', c.directors ?? [], plan.directors],
    ['signatory', c.signatories ?? [], plan.signatories],
    ['owner', c.ultimateBeneficialOwners ?? [], plan.owners],
  ];
  for (const [role, people, checks] of groups) {
    for (const p of people) {
      const facts = personFacts(role, p, c.kycDocuments);
      for (const checkId of checks) steps.push({ facts, checkId });
    }
  }
  return steps;
}

/** Identifies a planned check within a request: what a resumed run looks for among recorded checks. */
export const stepKey = (subject: Pick<Subject, 'role' | 'uniqueId'>, checkId: string) => `${subject.role}/${subject.uniqueId}/${checkId}`;
