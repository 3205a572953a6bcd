// Shared fixtures for the rule-language tests: a small generic schema (not the transaction one, to prove
// the compiler is schema-driven) and helpers to compile inline sources.
import { compileSources, RuleErrors, type CompiledRuleset, type Schema } from '../../src/rules/index.js';
import { DAY_MS } from '../../src/rules/schema.js';

export const testSchema: Schema = {
  name: 'test',
  fields: {
    'x.a': 'decimal',
    'x.b': 'decimal',
    'x.n': 'integer',
    'x.s': 'string',
    'x.t': 'string',
    'x.f': 'boolean',
    'x.g': 'boolean',
    'x.ts': 'timestamp',
    'y.u': 'string',
  },
  engineLists: { banned: {} },
  velocityKeys: { user: 'x.s', other: 'y.u' },
  firstSeenPairs: { pair: ['x.s', 'x.t'] },
  contextFeatures: new Set(['clock', 'history', 'screening', 'geo']),
  actions: [
    { name: 'low', code: 0 },
    { name: 'medium', code: 1 },
    { name: 'high', code: 2 },
  ],
  maxWindowMs: 7 * DAY_MS,
  utcOffsetMinutes: 0,
};

export const DECIDE = 'decide\n  high at 80\n  medium at 40\n  otherwise low\nend\n';

export function compileText(text: string, options: { schema?: Schema; lists?: Record<string, string> } = {}): CompiledRuleset {
  return compileSources(
    {
      files: [{ path: 'rules/a.rules', text }],
      lists: Object.entries(options.lists ?? {}).map(([name, t]) => ({ path: `rules/lists/${name}.txt`, text: t })),
    },
    { schema: options.schema ?? testSchema },
  );
}

/** The formatted diagnostics of compiling `text`, or [] when it compiles. */
export function diagnostics(text: string, options: { schema?: Schema; lists?: Record<string, string> } = {}): string[] {
  try {
    compileText(text, options);
    return [];
  } catch (e) {
    if (e instanceof RuleErrors) return e.format().split('\n');
    throw e;
  }
}
