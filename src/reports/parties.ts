// The goAML parties of a transaction built from the CDD customer records: persons, entities and their accounts.
// Each builder notes the mandatory data a record lacks (by the element's path) instead of failing, so a draft
// lists everything to fill in at once.
import anyAscii from 'any-ascii';
import type { CustomerDoc, StoredPerson } from '../cdd/index.js';
import type { MissingField, ReportingSettings } from './events.js';
import { codeFor, type Fiu } from './fiu.js';
import { leaf, maybe, node, type XmlNode } from './xml.js';

/** Collects what the records lack, each under the path of the element it would fill. */
export class Gaps {
  constructor(
    readonly path: string,
    readonly missing: MissingField[] = [],
  ) {}
  at(segment: string): Gaps {
    return new Gaps(`${this.path}.${segment}`, this.missing);
  }
  /** The value, or a note that `element` is missing (and a placeholder that keeps the document's shape). */
  need(element: string, value: string | null | undefined, message: string): XmlNode {
    if (value === null || value === undefined || value.trim() === '') {
      this.missing.push({ field: `${this.path}.${element}`, message });
      return leaf(element, '');
    }
    return leaf(element, value);
  }
}

/** The characters goAML's name patterns allow, after transliteration: `Adébáyọ̀ & Sons` → `Adebayo  Sons`. */
export const goamlName = (text: string | null | undefined): string | undefined => {
  if (!text) return undefined;
  const ascii = anyAscii(text)
    .replace(/[^a-zA-Z0-9 .'-]/g, '')
    .trim();
  return ascii === '' ? undefined : ascii.slice(0, 100);
};

/** goAML's dateTime without offset, from an ISO timestamp or day. */
export const sqlDate = (iso: string | null | undefined): string | undefined =>
  iso ? `${iso.slice(0, 10)}T${iso.slice(11, 19) || '00:00:00'}` : undefined;

/**
 * An instant as goAML's dateTime in the business's local time (goAML's dates carry no offset, and the FIU reads them
 * as the reporting entity's): 23:30 UTC on the 26th is 00:30 on the 27th in Lagos. A day alone stays that day.
 */
export const localSqlDate = (iso: string | null | undefined, utcOffsetMinutes: number): string | undefined =>
  iso && iso.length > 10 ? sqlDate(new Date(Date.parse(iso) + utcOffsetMinutes * 60_000).toISOString()) : sqlDate(iso);

/** An ISO 3166 alpha-2 code, the only country form goAML takes. */
export const countryCode = (text: string | null | undefined): string | undefined =>
  text && /^[A-Za-z]{2}$/.test(text.trim()) ? text.trim().toUpperCase() : undefined;

const GENDERS: Record<string, string> = { m: 'M', male: 'M', f: 'F', female: 'F' };
const gender = (text: string | null | undefined) => GENDERS[(text ?? '').toLowerCase()] ?? '-';

type IndividualDoc = Extract<CustomerDoc, { type: 'individual' }>;

/**
 * A person as goAML reports one: a corporate customer's director or signatory (the CDD domain's stored person), or an
 * individual customer, which also has these fields and a few more; with the number the person is identified by.
 */
type PersonRecord = StoredPerson &
  Partial<Pick<IndividualDoc, 'countryOfResidence' | 'occupation' | 'taxId' | 'sourceOfWealth'>> & { idNumber?: string };

type KycDocument = NonNullable<CustomerDoc['kycDocuments']>[number];

function identification(doc: KycDocument, fiu: Fiu, gaps: Gaps): XmlNode {
  return node('identification', [
    leaf('type', codeFor(fiu.identifierTypes, doc.type)),
    gaps.need('number', doc.documentNumber, `identity document ${doc.type} has no documentNumber`),
    gaps.need('issue_date', sqlDate(doc.issueDate), `identity document ${doc.type} has no issueDate`),
    gaps.need('expiry_date', sqlDate(doc.expiryDate), `identity document ${doc.type} has no expiryDate`),
    maybe('issued_by', doc.issuingAuthority),
    gaps.need(
      'issue_country',
      countryCode(doc.issuingCountry),
      `identity document ${doc.type} needs issuingCountry as an ISO 3166 alpha-2 code`,
    ),
  ]);
}

/** t_person_my_client: a customer person, with every mandatory element the schema asks of one. */
export function personMyClient(name: string, who: string, p: PersonRecord, documents: KycDocument[], fiu: Fiu, gaps: Gaps): XmlNode {
  const country = (field: string, value: string | undefined, source: string) =>
    gaps.need(field, countryCode(value), `${who}: ${source} must be an ISO 3166 alpha-2 code`);
  return node(name, [
    leaf('gender', gender(p.gender)),
    gaps.need('first_name', goamlName(p.firstName), `${who} has no firstName`),
    maybe('middle_name', goamlName(p.middleName)),
    gaps.need('last_name', goamlName(p.lastName), `${who} has no lastName`),
    gaps.need('birthdate', sqlDate(p.dob), `${who} has no dob`),
    gaps.need('id_number', p.idNumber, `${who} has no identification number (ninNumber, bvnNumber or an identity document's number)`),
    country('nationality1', p.nationality, 'nationality'),
    country('residence', p.countryOfResidence ?? p.nationality, 'countryOfResidence'),
    node('phones', [
      p.phone
        ? node('phone', [leaf('tph_contact_type', 'PRIVT'), leaf('tph_communication_type', 'M'), leaf('tph_number', p.phone.slice(0, 50))])
        : undefined,
    ]),
    maybe('email', p.email && /^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,15}$/.test(p.email) ? p.email : undefined),
    maybe('occupation', p.occupation?.slice(0, 255)),
    ...(documents.length > 0
      ? documents.map((d, i) => identification(d, fiu, gaps.at(`identification[${i}]`)))
      : [gaps.need('identification', undefined, `${who} has no identity document (kycDocuments)`)]),
    maybe('tax_number', p.taxId),
    leaf('tax_reg_number', p.taxId ? 'Y' : 'N'),
    maybe('source_of_wealth', p.sourceOfWealth?.slice(0, 255)),
  ]);
}

const individualPerson = (doc: IndividualDoc): PersonRecord => ({
  ...doc,
  idNumber: doc.ninNumber ?? doc.bvnNumber ?? doc.kycDocuments?.find((d) => d.documentNumber)?.documentNumber ?? undefined,
});

const storedPerson = (p: StoredPerson): PersonRecord => ({ ...p, idNumber: p.identificationNumber });

const documentsOf = (doc: CustomerDoc, personUniqueId?: string) =>
  (doc.kycDocuments ?? []).filter((d) => (personUniqueId ? d.personUniqueId === personUniqueId : !d.personUniqueId));

/** t_entity_my_client: a corporate customer, with its directors. */
function entityMyClient(doc: Extract<CustomerDoc, { type: 'corporate' }>, fiu: Fiu, gaps: Gaps): XmlNode {
  const who = `customer ${doc.uniqueId}`;
  const directors = doc.directors ?? [];
  return node('t_entity', [
    gaps.need('name', goamlName(doc.businessName)?.slice(0, 255), `${who} has no businessName`),
    leaf('incorporation_legal_form', '-'),
    gaps.need('incorporation_number', doc.registrationNumber?.slice(0, 50), `${who} has no registrationNumber`),
    leaf('business', (doc.natureOfBusiness ?? doc.industryType ?? '').slice(0, 255)),
    node('addresses', []),
    maybe('email', doc.businessEmail && /^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,15}$/.test(doc.businessEmail) ? doc.businessEmail : undefined),
    gaps.need('incorporation_state', doc.stateOfIncorporation, `${who} has no stateOfIncorporation`),
    gaps.need(
      'incorporation_country_code',
      countryCode(doc.countryOfIncorporation),
      `${who}: countryOfIncorporation must be an ISO 3166 alpha-2 code`,
    ),
    ...(directors.length > 0
      ? directors.map((d, i) => {
          const g = gaps.at(`director_id[${i}]`);
          return node('director_id', [
            g.need('first_name', goamlName(d.firstName), `director ${d.uniqueId} of ${who} has no firstName`),
            g.need('last_name', goamlName(d.lastName), `director ${d.uniqueId} of ${who} has no lastName`),
            leaf('role', fiu.directorRole),
          ]);
        })
      : [gaps.need('director_id', undefined, `${who} has no directors`)]),
    gaps.need('incorporation_date', sqlDate(doc.incorporationDate), `${who} has no incorporationDate`),
    maybe('tax_number', doc.taxIdentificationNumber),
    leaf('tax_reg_number', doc.taxIdentificationNumber ? 'Y' : 'N'),
  ]);
}

const ACCOUNT_STATUSES: Record<string, string> = { active: 'A', closed: 'C', blocked: 'BLK', frozen: 'FROZN', dormant: 'B' };

/** t_account_my_client: the customer's account, its holder (individual) or entity and signatories (corporate). */
export function accountMyClient(
  name: string,
  customer: CustomerDoc,
  accountNumber: string,
  beneficiary: string,
  currency: string,
  settings: ReportingSettings,
  fiu: Fiu,
  gaps: Gaps,
): XmlNode {
  const who = `customer ${customer.uniqueId}`;
  const account = customer.accounts?.find((a) => a.accountNumber === accountNumber);
  const corporate = customer.type === 'corporate';
  const holderName = corporate ? customer.businessName : [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  const signatories = corporate
    ? (customer.signatories?.length ? customer.signatories : (customer.directors ?? [])).map((p, i) =>
        node('signatory', [
          personMyClient(
            't_person',
            `signatory ${p.uniqueId} of ${who}`,
            storedPerson(p),
            documentsOf(customer, p.uniqueId),
            fiu,
            gaps.at(`signatory[${i}].t_person`),
          ),
          leaf('role', fiu.accountHolderRole),
        ]),
      )
    : [
        node('signatory', [
          leaf('is_primary', '1'),
          personMyClient('t_person', who, individualPerson(customer), documentsOf(customer), fiu, gaps.at('signatory[0].t_person')),
          leaf('role', fiu.accountHolderRole),
        ]),
      ];
  return node(name, [
    leaf('institution_name', settings.institution.name),
    leaf('institution_code', settings.institution.code),
    leaf('institution_country', settings.institution.country),
    leaf('non_bank_institution', String(settings.institution.nonBank)),
    leaf('branch', settings.branch),
    leaf('account', accountNumber),
    leaf('currency_code', account?.accountCurrency ?? currency),
    gaps.need('account_name', goamlName(holderName)?.slice(0, 255), `${who} has no name`),
    maybe('client_number', customer.uniqueId.length <= 30 ? customer.uniqueId : undefined),
    leaf(
      corporate ? 'account_type' : 'personal_account_type',
      codeFor(fiu.accountTypes, account?.accountType ?? (corporate ? 'corporate' : undefined)),
    ),
    corporate ? entityMyClient(customer, fiu, gaps.at('t_entity')) : undefined,
    ...(signatories.length > 0 ? signatories : [gaps.need('signatory', undefined, `${who} has no signatories or directors`)]),
    gaps.need(
      'opened',
      sqlDate(account?.openingDate ?? customer.relationshipStartDate),
      `${who}: account ${accountNumber} has no openingDate`,
    ),
    leaf('status_code', ACCOUNT_STATUSES[(account?.accountStatus ?? 'active').toLowerCase()] ?? '-'),
    leaf('beneficiary', beneficiary.slice(0, 50)),
  ]);
}

/** t_account: an account held elsewhere, as the transaction names it. */
export function accountElsewhere(
  name: string,
  party: { accountNumber?: string | null; bankCode?: string | null; name?: string | null; who: string },
  gaps: Gaps,
): XmlNode {
  return node(name, [
    gaps.need('institution_code', party.bankCode?.slice(0, 50), `${party.who} has no bankCode`),
    gaps.need('account', party.accountNumber, `${party.who} has no account number`),
    gaps.need('account_name', goamlName(party.name)?.slice(0, 255), `${party.who} has no name`),
  ]);
}
