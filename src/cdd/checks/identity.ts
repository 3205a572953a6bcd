// Identity checks: what the customer submitted against what the issuing registry holds for that number.
import { compareNames } from '../../name-matching/compare.js';
import { normaliseRegistrationNumber, type IdentityKind, type IdentityProvider, type IdentityRecord } from '../../registry/index.js';
import { personName } from '../names.js';
import type { Check } from '../types.js';
import { CheckBuilder } from './result.js';
import type { IdentityCheckId, SubjectFacts } from './subjects.js';

const KINDS: Record<IdentityCheckId, IdentityKind> = {
  bvn: 'bvn',
  nin: 'nin',
  'voters card': 'voters_card',
  passport: 'passport',
  'drivers licence': 'drivers_licence',
  tin: 'tin',
};

const dateOnly = (value: string | null | undefined) => (value ? value.slice(0, 10) : undefined);

export function compareNameResult(
  b: CheckBuilder,
  submitted: string,
  found: string | undefined,
  threshold: number,
  start: string,
  missing: string,
): void {
  if (!submitted) return void b.add('compareNames', false, 'No name submitted', null, found, start);
  if (found === undefined) return void b.add('compareNames', false, missing, submitted, null, start);
  const score = Math.round(compareNames(submitted, found));
  const ok = score >= threshold;
  b.add(
    'compareNames',
    ok,
    ok ? `Names match (score ${score})` : `Names differ (score ${score}, threshold ${threshold})`,
    submitted,
    found,
    start,
  );
}

export function compareRegistrationResult(
  b: CheckBuilder,
  submitted: string | undefined,
  found: string | null | undefined,
  start: string,
  missing: string,
): void {
  if (!submitted) return void b.add('compareRegistrationNumber', false, 'No registration number submitted', null, found, start);
  if (!found) return void b.add('compareRegistrationNumber', false, missing, submitted, null, start);
  const ok = normaliseRegistrationNumber(submitted) === normaliseRegistrationNumber(found);
  b.add('compareRegistrationNumber', ok, ok ? 'Registration numbers match' : 'Registration numbers differ', submitted, found, start);
}

function compareExact(
  b: CheckBuilder,
  name: string,
  label: string,
  submitted: string | undefined,
  found: string | null | undefined,
  start: string,
  missing: string | undefined,
): void {
  if (missing) return void b.add(name, false, missing, submitted, null, start);
  if (!submitted) return void b.add(name, false, `No ${label} submitted`, null, found, start);
  if (!found) return void b.add(name, false, `The registry holds no ${label}`, submitted, null, start);
  const ok = submitted.trim().toLowerCase() === found.trim().toLowerCase();
  b.add(
    name,
    ok,
    ok ? `${label[0]!.toUpperCase()}${label.slice(1)} matches` : `${label[0]!.toUpperCase()}${label.slice(1)} differs`,
    submitted,
    found,
    start,
  );
}

export async function identityCheck(
  provider: IdentityProvider,
  checkId: IdentityCheckId,
  facts: SubjectFacts,
  threshold: number,
  now: () => Date,
): Promise<Check> {
  const start = now().toISOString();
  const b = new CheckBuilder(checkId, now);
  const number = facts.numbers[checkId];
  let record: IdentityRecord | undefined;
  if (number) record = await provider.identity(KINDS[checkId], number);
  const missing = !number ? `No ${checkId} number submitted` : !record ? `No ${checkId} record found for ${number}` : undefined;
  if (facts.kind === 'company') {
    compareNameResult(b, facts.subject.name, missing ? undefined : (record!.name ?? personName(record!)), threshold, start, missing ?? '');
    compareRegistrationResult(
      b,
      facts.registrationNumber,
      record?.registrationNumber,
      start,
      missing ?? 'The registry links no registration number to this tin',
    );
    return b.build();
  }
  compareNameResult(b, facts.subject.name, missing ? undefined : personName(record!), threshold, start, missing ?? '');
  compareExact(b, 'compareDateOfBirth', 'date of birth', dateOnly(facts.dob), dateOnly(record?.dob), start, missing);
  compareExact(b, 'compareGender', 'gender', facts.gender, record?.gender, start, missing);
  return b.build();
}
