import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { formatOf, parseCompanyExtract, parseIdentityExtract } from '../registry/index.js';
import type { Command } from './context.js';
import { withEngine } from './with-engine.js';

/** Loads a real registry extract into the embedded registry; rows with the same number replace the sample's. */
export const registryImport: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({ args: argv, options: { kind: { type: 'string' } }, allowPositionals: true, strict: true });
  const path = positionals[0];
  if ((values.kind !== 'identity' && values.kind !== 'company') || !path) {
    io.err('registry import: --kind identity|company PATH (CSV with a header row, or .jsonl) is required');
    return 2;
  }
  const text = await readFile(path, 'utf8');
  const format = formatOf(path);
  const source = `import:${basename(path)}`;
  const count = await withEngine((e) =>
    values.kind === 'identity'
      ? e.registry.importIdentities(parseIdentityExtract(text, format), source)
      : e.registry.importCompanies(parseCompanyExtract(text, format), source),
  );
  io.out(JSON.stringify({ kind: values.kind, imported: count, source }));
  return 0;
};
