// The read shapes of GET /api/v1/cdd/customers/{uniqueId} (compliance-service-interface.md): individual and
// corporate, with confirmation links and the confirmed screening records embedded.
import type { CustomerView } from './customers.js';
import type { Checks, Confirmation, Confirmations, StoredPerson } from './types.js';
import { ownValue } from '../own-keys.js';

const embedded = (c: Confirmation | undefined) => (c ? { ...c.record, confirmedAt: c.confirmedAt } : null);

/** pepConfirmedAt/pepId, sanctionConfirmedAt/sanctionId, adverseMediaConfirmedAt/adverseMediaId, and the records. */
export function confirmationFields(c: Confirmations = {}) {
  return {
    pepConfirmedAt: c.pep?.confirmedAt ?? null,
    pepId: c.pep?.id ?? null,
    sanctionConfirmedAt: c.sanctions?.confirmedAt ?? null,
    sanctionId: c.sanctions?.id ?? null,
    adverseMediaConfirmedAt: c.adverseMedia?.confirmedAt ?? null,
    adverseMediaId: c.adverseMedia?.id ?? null,
    pep: embedded(c.pep),
    sanctions: embedded(c.sanctions),
    adverseMedia: embedded(c.adverseMedia),
  };
}

function personEntry(p: StoredPerson, view: CustomerView) {
  const confirmations = ownValue(view.confirmations.persons, p.uniqueId) ?? {};
  const { pep, sanctions, adverseMedia, ...links } = confirmationFields(confirmations);
  const checks: Checks = ownValue(view.checks.persons, p.uniqueId) ?? {};
  return {
    uniqueId: p.uniqueId,
    data: { ...p, isPep: p.isPep === true || pep !== null, isSanctioned: p.isSanctioned === true || sanctions !== null, ...links },
    checks,
    ...(pep ? { pep } : {}),
    ...(sanctions ? { sanctions } : {}),
    ...(adverseMedia ? { adverseMedia } : {}),
  };
}

export function customerReadShape(view: CustomerView) {
  const { doc } = view;
  const links = confirmationFields(view.confirmations.customer);
  const customer = {
    ...doc,
    kycDocuments: (doc.kycDocuments ?? []).map((d) => ({ ...d, source: d.source ?? 'cdd' })),
    isPep: doc.isPep === true || links.pep !== null,
    isSanctioned: doc.isSanctioned === true || links.sanctions !== null,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    ...links,
    customerRiskSummary: view.risk,
  };
  const base = { customer, customerRiskSummary: view.risk, checks: view.checks.customer };
  if (doc.type !== 'corporate') return base;
  return {
    ...base,
    signatories: (doc.signatories ?? []).map((p) => personEntry(p, view)),
    directors: (doc.directors ?? []).map((p) => personEntry(p, view)),
    ultimateBeneficialOwners: (doc.ultimateBeneficialOwners ?? []).map((p) => personEntry(p as StoredPerson, view)),
  };
}
