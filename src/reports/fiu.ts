import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { BUNDLED_FIU_DIR } from '../package-files.js';

/** The goAML simple types whose values are an FIU's lookup tables rather than the schema's structure. */
export const CODE_LISTS = [
  'report_type',
  'funds_type',
  'conduction_type',
  'account_type',
  'identifier_type',
  'report_indicator_type',
] as const;
export type CodeList = (typeof CODE_LISTS)[number];

/** A mapping from the engine's words (a channel, an account type) to an FIU code, with the code used otherwise. */
const Mapping = z.record(z.string(), z.string()).refine((m) => typeof m.default === 'string', 'must have a default code');

const FiuFile = z.strictObject({
  name: z.string(),
  /** Values replacing the schema's enumeration of each listed type; a type left out keeps the schema's values. */
  codeLists: z.partialRecord(z.enum(CODE_LISTS), z.array(z.string()).min(1)),
  reportCodes: z.strictObject({ str: z.string(), threshold: z.string() }),
  indicators: z.strictObject({ str: z.array(z.string()).min(1), threshold: z.array(z.string()).min(1) }),
  fundsTypes: Mapping,
  conductionTypes: Mapping,
  accountTypes: Mapping,
  identifierTypes: Mapping,
  accountHolderRole: z.string(),
  directorRole: z.string(),
});
export type Fiu = z.infer<typeof FiuFile> & { id: string };

/** The code a mapping gives a word (lower-cased, spaces, dashes and underscores dropped), else its default. */
export function codeFor(mapping: Record<string, string>, word: string | null | undefined): string {
  const key = (word ?? '').toLowerCase().replace(/[\s_-]+/g, '');
  return (Object.hasOwn(mapping, key) ? mapping[key] : undefined) ?? mapping.default!;
}

/** The FIU configurations of a folder, by file name without `.json` (the id a business's configuration names). */
export function loadFius(dir: string = BUNDLED_FIU_DIR): ReadonlyMap<string, Fiu> {
  const fius = new Map<string, Fiu>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const id = file.slice(0, -'.json'.length);
    const parsed = FiuFile.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    if (!parsed.success)
      throw new Error(`FIU configuration ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    fius.set(id, { ...parsed.data, id });
  }
  return fius;
}

export function fiuOf(fius: ReadonlyMap<string, Fiu>, id: string): Fiu {
  const fiu = fius.get(id);
  if (!fiu) throw new ValidationError(`fiu must be one of: ${[...fius.keys()].join(', ')}`, 'fiu');
  return fiu;
}
