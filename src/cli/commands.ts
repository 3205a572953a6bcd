import type { Command } from './context.js';

/**
 * Command words → handler. The longest matching prefix of the arguments wins. Each handler's module is imported
 * only when its command runs: a key command then starts without loading the engine's rules, lists and index.
 */
export const commands: Record<string, { load: () => Promise<Command>; help: string }> = {
  'keys create': {
    load: async () => (await import('./keys.js')).keysCreate,
    help: 'keys create --name NAME [--business ID] [--user USER_ID]',
  },
  'keys list': { load: async () => (await import('./keys-list.js')).keysList, help: 'keys list' },
  'keys revoke': { load: async () => (await import('./keys.js')).keysRevoke, help: 'keys revoke API_KEY' },
  'keys bind': { load: async () => (await import('./keys-bind.js')).keysBind, help: 'keys bind --key API_KEY --user USER_ID' },
  'webhook-secret rotate': {
    load: async () => (await import('./keys.js')).webhookSecretRotate,
    help: 'webhook-secret rotate --business ID',
  },
  'webhook-secret show': { load: async () => (await import('./keys.js')).webhookSecretShow, help: 'webhook-secret show --business ID' },
  'screening import': {
    load: async () => (await import('./screening.js')).screeningImport,
    help: 'screening import --format ofac-csv|un-xml|ofsi-xlsx|ftm-json|csv|everypolitician|wikidata-pep PATH [--list NAME]',
  },
  'screening import-articles': {
    load: async () => (await import('./screening.js')).screeningImportArticles,
    help: 'screening import-articles PATH (.csv or .jsonl: link, title, origin?, publishedAt?, body or snippet)',
  },
  'screening lists': { load: async () => (await import('./screening.js')).screeningLists, help: 'screening lists' },
  'registry import': {
    load: async () => (await import('./registry.js')).registryImport,
    help: 'registry import --kind identity|company PATH (.csv or .jsonl)',
  },
  'users create': {
    load: async () => (await import('./users.js')).usersCreate,
    help: 'users create --email EMAIL --role analyst|admin|auditor [--business ID] [--first-name NAME] [--last-name NAME]',
  },
  'users reset-password': {
    load: async () => (await import('./users.js')).usersResetPassword,
    help: 'users reset-password --email EMAIL [--business ID]',
  },
  replay: { load: async () => (await import('./replay.js')).replay, help: 'replay --verify | --rebuild' },
  'store copy': {
    load: async () => (await import('./store.js')).storeCopy,
    help: 'store copy --to postgres://… (the SQLite log of DATA_DIR into an empty PostgreSQL database)',
  },
  'rules check': { load: async () => (await import('./rules.js')).rulesCheck, help: 'rules check [DIR]' },
  'rules test': { load: async () => (await import('./rules.js')).rulesTest, help: 'rules test [DIR]' },
  'store rotate-upload-key': {
    load: async () => (await import('./store.js')).storeRotateUploadKey,
    help: 'store rotate-upload-key (new upload URL key for every node; URLs already issued keep working on PostgreSQL)',
  },
  'audit checkpoint': {
    load: async () => (await import('./audit.js')).auditCheckpoint,
    help: 'audit checkpoint (prints a signed tree head to keep)',
  },
  'audit verify': {
    load: async () => (await import('./audit.js')).auditVerify,
    help: 'audit verify --checkpoint FILE [--checkpoint FILE…]',
  },
  'audit rotate-key': {
    load: async () => (await import('./audit.js')).auditRotateKey,
    help: 'audit rotate-key (new signing key, for every node; the new public key is logged)',
  },
  'audit public-key': { load: async () => (await import('./audit.js')).auditPublicKey, help: 'audit public-key' },
  'witness serve': {
    load: async () => (await import('./witness.js')).witnessServe,
    help: 'witness serve --name NAME --key FILE --state FILE --log LOG_VKEY [--log LOG_VKEY…] [--port PORT] (a C2SP tlog-witness)',
  },
  'witness new-key': {
    load: async () => (await import('./witness.js')).witnessNewKey,
    help: 'witness new-key --name NAME --out FILE (prints the witness verifier key)',
  },
  'reports threshold': {
    load: async () => (await import('./reports.js')).reportsThreshold,
    help: "reports threshold --date YYYY-MM-DD [--business ID] (drafts the day's threshold report, printed as JSON)",
  },
  'rules backtest': {
    load: async () => (await import('./rules.js')).rulesBacktest,
    help: 'rules backtest --candidate DIR [--from ISO] [--to ISO] [--business ID]',
  },
  'rules performance': {
    load: async () => (await import('./rules.js')).rulesPerformance,
    help: 'rules performance [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--business ID] (hits, alerts, cases, dispositions, STRs per rule)',
  },
  'rules shadow': {
    load: async () => (await import('./rules.js')).rulesShadow,
    help: 'rules shadow start --candidate DIR [--hours N] [--max-decisions N] | report [--pair P] [--page N] | stop | publish, each with --business ID',
  },
};
