import type { Kysely } from 'kysely';
import { syntheticCompanies, syntheticCompanyTins, syntheticIdentities, syntheticPeople } from './synthetic.js';
import {
  normaliseRegistrationNumber,
  type CompanyRegistryRecord,
  type CompanyType,
  type IdentityKind,
  type IdentityRecord,
  type RegistryProvider,
} from './types.js';

interface IdentitiesTable {
  kind: string;
  number: string;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  name: string | null;
  dob: string | null;
  gender: string | null;
  registration_number: string | null;
  source: string;
}

interface CompaniesTable {
  company_type: string;
  registration_number: string;
  business_name: string;
  record: string;
  source: string;
}

interface RegistryTables {
  registry_identities: IdentitiesTable;
  registry_companies: CompaniesTable;
}

/** Marks rows of the generated sample, so an operator can tell them from an imported extract. */
export const SYNTHETIC_SOURCE = 'synthetic';

/** The registry's tables: reference data, not events, so a store copy copies their rows. */
export const REGISTRY_TABLES = ['registry_identities', 'registry_companies'] as const;

export async function migrateRegistry(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('registry_identities')
    .ifNotExists()
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('middle_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('name', 'text')
    .addColumn('dob', 'text')
    .addColumn('gender', 'text')
    .addColumn('registration_number', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('registry_identities_pk', ['kind', 'number'])
    .execute();
  await db.schema
    .createTable('registry_companies')
    .ifNotExists()
    .addColumn('company_type', 'text', (c) => c.notNull())
    .addColumn('registration_number', 'text', (c) => c.notNull())
    .addColumn('business_name', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('registry_companies_pk', ['company_type', 'registration_number'])
    .execute();
}

const CHUNK = 400;

/** The embedded registry: SQLite tables seeded with the synthetic sample, extended by imports. */
export class SqliteRegistry implements RegistryProvider {
  readonly #db: Kysely<RegistryTables>;
  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  /** Loads the synthetic sample once; an imported row with the same number is never overwritten. */
  async seedSynthetic(): Promise<void> {
    const seeded = await this.#db
      .selectFrom('registry_identities')
      .select('kind')
      .where('source', '=', SYNTHETIC_SOURCE)
      .limit(1)
      .executeTakeFirst();
    if (seeded) return;
    const people = syntheticPeople();
    const companies = syntheticCompanies(undefined, people);
    await this.importIdentities([...syntheticIdentities(people), ...syntheticCompanyTins(companies)], SYNTHETIC_SOURCE, false);
    await this.importCompanies(
      companies.map((c) => ({ type: c.type, record: c.record })),
      SYNTHETIC_SOURCE,
      false,
    );
  }

  async importIdentities(records: readonly IdentityRecord[], source: string, replace = true): Promise<number> {
    const rows: IdentitiesTable[] = records.map((r) => ({
      kind: r.kind,
      number: r.number.trim(),
      first_name: r.firstName ?? null,
      middle_name: r.middleName ?? null,
      last_name: r.lastName ?? null,
      name: r.name ?? null,
      dob: r.dob ?? null,
      gender: r.gender ?? null,
      registration_number: r.registrationNumber ? normaliseRegistrationNumber(r.registrationNumber) : null,
      source,
    }));
    await this.#db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await trx
          .insertInto('registry_identities')
          .values(rows.slice(i, i + CHUNK))
          .onConflict((oc) =>
            replace
              ? oc.columns(['kind', 'number']).doUpdateSet((eb) => ({
                  first_name: eb.ref('excluded.first_name'),
                  middle_name: eb.ref('excluded.middle_name'),
                  last_name: eb.ref('excluded.last_name'),
                  name: eb.ref('excluded.name'),
                  dob: eb.ref('excluded.dob'),
                  gender: eb.ref('excluded.gender'),
                  registration_number: eb.ref('excluded.registration_number'),
                  source: eb.ref('excluded.source'),
                }))
              : oc.doNothing(),
          )
          .execute();
      }
    });
    return rows.length;
  }

  async importCompanies(
    companies: readonly { type: CompanyType; record: CompanyRegistryRecord }[],
    source: string,
    replace = true,
  ): Promise<number> {
    const rows: CompaniesTable[] = companies.map((c) => ({
      company_type: c.type,
      registration_number: normaliseRegistrationNumber(c.record.registrationNumber),
      business_name: c.record.businessName,
      record: JSON.stringify(c.record),
      source,
    }));
    await this.#db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await trx
          .insertInto('registry_companies')
          .values(rows.slice(i, i + CHUNK))
          .onConflict((oc) =>
            replace
              ? oc.columns(['company_type', 'registration_number']).doUpdateSet((eb) => ({
                  business_name: eb.ref('excluded.business_name'),
                  record: eb.ref('excluded.record'),
                  source: eb.ref('excluded.source'),
                }))
              : oc.doNothing(),
          )
          .execute();
      }
    });
    return rows.length;
  }

  async identity(kind: IdentityKind, number: string): Promise<IdentityRecord | undefined> {
    const row = await this.#db
      .selectFrom('registry_identities')
      .selectAll()
      .where('kind', '=', kind)
      .where('number', '=', number.trim())
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      kind,
      number: row.number,
      firstName: row.first_name,
      middleName: row.middle_name,
      lastName: row.last_name,
      name: row.name,
      dob: row.dob,
      gender: row.gender,
      registrationNumber: row.registration_number,
    };
  }

  async company(type: CompanyType, registrationNumber: string): Promise<CompanyRegistryRecord | undefined> {
    const row = await this.#db
      .selectFrom('registry_companies')
      .select('record')
      .where('company_type', '=', type)
      .where('registration_number', '=', normaliseRegistrationNumber(registrationNumber))
      .executeTakeFirst();
    return row ? (JSON.parse(row.record) as CompanyRegistryRecord) : undefined;
  }
}
