import { auditCheckpoint, auditPublicKey, auditRotateKey, auditVerify } from './audit.js';
import type { Command } from './context.js';
import { keysCreate, keysList, keysRevoke, webhookSecretRotate, webhookSecretShow } from './keys.js';
import { keysBind } from './keys-bind.js';
import { registryImport } from './registry.js';
import { replay } from './replay.js';
import { rulesBacktest, rulesCheck, rulesTest } from './rules.js';
import { screeningImport, screeningImportArticles, screeningLists } from './screening.js';

/** Command words → handler. The longest matching prefix of the arguments wins. */
export const commands: Record<string, { run: Command; help: string }> = {
  'keys create': { run: keysCreate, help: 'keys create --name NAME [--business ID] [--user USER_ID]' },
  'keys list': { run: keysList, help: 'keys list' },
  'keys revoke': { run: keysRevoke, help: 'keys revoke API_KEY' },
  'keys bind': { run: keysBind, help: 'keys bind --key API_KEY --user USER_ID' },
  'webhook-secret rotate': { run: webhookSecretRotate, help: 'webhook-secret rotate --business ID' },
  'webhook-secret show': { run: webhookSecretShow, help: 'webhook-secret show --business ID' },
  'screening import': {
    run: screeningImport,
    help: 'screening import --format ofac-csv|un-xml|ftm-json|csv|everypolitician PATH [--list NAME]',
  },
  'screening import-articles': {
    run: screeningImportArticles,
    help: 'screening import-articles PATH (.csv or .jsonl: link, title, origin?, publishedAt?, body or snippet)',
  },
  'screening lists': { run: screeningLists, help: 'screening lists' },
  'registry import': { run: registryImport, help: 'registry import --kind identity|company PATH (.csv or .jsonl)' },
  replay: { run: replay, help: 'replay --verify | --rebuild' },
  'rules check': { run: rulesCheck, help: 'rules check [DIR]' },
  'rules test': { run: rulesTest, help: 'rules test [DIR]' },
  'audit checkpoint': { run: auditCheckpoint, help: 'audit checkpoint (prints a signed tree head to keep)' },
  'audit verify': { run: auditVerify, help: 'audit verify --checkpoint FILE [--checkpoint FILE…]' },
  'audit rotate-key': { run: auditRotateKey, help: 'audit rotate-key (new signing key file; the new public key is logged)' },
  'audit public-key': { run: auditPublicKey, help: 'audit public-key' },
  'rules backtest': { run: rulesBacktest, help: 'rules backtest --candidate DIR [--from ISO] [--to ISO] [--business ID]' },
};
