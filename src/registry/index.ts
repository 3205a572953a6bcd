export { HttpRegistryProvider, type HttpRegistryOptions } from './http.js';
export { CompanyRegistryRecordSchema, formatOf, parseCompanyExtract, parseIdentityExtract, type RegistryKind } from './import.js';
export { migrateRegistry, REGISTRY_TABLES, SqliteRegistry, SYNTHETIC_SOURCE } from './sqlite.js';
export { syntheticCompanies, syntheticIdentities, syntheticPeople, type SyntheticCompany, type SyntheticPerson } from './synthetic.js';
export * from './types.js';
