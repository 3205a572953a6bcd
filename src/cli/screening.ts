import { parseArgs } from 'node:util';
import { LIST_FORMATS, type ListFormat } from '../screening/index.js';
import type { Command } from './context.js';
import { withEngine } from './with-engine.js';

const isFormat = (value: string | undefined): value is ListFormat => LIST_FORMATS.includes(value as ListFormat);

/** Loads or refreshes a screening list; a running server sees the new version through the log and rebuilds its matcher. */
export const screeningImport: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { format: { type: 'string' }, list: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (!isFormat(values.format)) {
    io.err(`screening import: --format must be one of ${LIST_FORMATS.join(', ')}`);
    return 2;
  }
  const path = positionals[0];
  if (!path) {
    io.err('screening import: the PATH of the list file (or OFAC folder) is required');
    return 2;
  }
  const format = values.format;
  const outcome = await withEngine((e) => e.screening.importList({ format, path, list: values.list }));
  if (!outcome.changed) io.err(`list ${outcome.list} is unchanged (version ${outcome.version}); nothing imported`);
  io.out(JSON.stringify(outcome));
  return 0;
};

export const screeningLists: Command = async (_argv, io) => {
  const lists = await withEngine((e) => e.screening.lists());
  io.out(JSON.stringify(lists, null, 2));
  return 0;
};

/** Adds a news feed to the adverse-media index; a running server picks it up through the log. */
export const screeningImportArticles: Command = async (argv, io) => {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  const path = positionals[0];
  if (!path) {
    io.err('screening import-articles: the PATH of a .csv or .jsonl article file is required');
    return 2;
  }
  const outcome = await withEngine((e) => e.screening.importArticles(path));
  if (!outcome.changed) io.err('these articles were already imported; nothing imported');
  io.out(JSON.stringify(outcome));
  return 0;
};
