// Runs the example transactions of `<name>.test.json` files against a ruleset. Each case is a request
// (deep-merged over test-base.json), optional prior history, list contents and provider answers, and the
// rules expected to fire / not fire and the expected action.
import { z } from 'zod';
import type { CompiledRuleset } from './compiler.js';
import { MemoryLists, RulesRuntime } from './runtime.js';
import { toDecimal } from './values.js';
import { emptyRecord } from '../own-keys.js';

const Json = z.record(z.string(), z.unknown());

const Case = z.strictObject({
  name: z.string(),
  request: Json.optional(),
  history: z
    .array(
      z.strictObject({
        ago: z.string().regex(/^\d+(m|h|d)$/, 'use e.g. "5m", "2h" or "200d"'),
        repeat: z.number().int().positive().optional(),
        request: Json.optional(),
      }),
    )
    .optional(),
  /** Global lists as arrays; scoped lists (knownDevices) as { scopeValue: [...] }. */
  lists: z.record(z.string(), z.union([z.array(z.string()), z.record(z.string(), z.array(z.string()))])).optional(),
  screening: z
    .strictObject({ sanctions: z.record(z.string(), z.number()).optional(), pep: z.record(z.string(), z.number()).optional() })
    .optional(),
  ipCountries: z.record(z.string(), z.string()).optional(),
  fires: z.array(z.string()).optional(),
  notFires: z.array(z.string()).optional(),
  action: z.string().optional(),
});

export const RuleTestFileSchema = z.strictObject({ cases: z.array(Case) });
export type RuleTestCase = z.infer<typeof Case>;

export interface RuleTestResult {
  readonly file: string;
  readonly name: string;
  readonly failures: readonly string[];
}

/** Objects merge key by key, `null` deletes a key (to make a field missing), anything else replaces. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  // Keys come from the test file: a prototype-less copy takes '__proto__' as a plain key.
  const out = emptyRecord<unknown>();
  if (typeof base === 'object' && base !== null && !Array.isArray(base)) Object.assign(out, base);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = deepMerge(out[k], v);
  }
  return out;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function agoMs(ago: string): number {
  return Number(ago.slice(0, -1)) * UNIT_MS[ago.slice(-1) as keyof typeof UNIT_MS];
}

function listsOf(c: RuleTestCase): MemoryLists {
  const lists = new MemoryLists();
  for (const [name, content] of Object.entries(c.lists ?? {})) {
    if (Array.isArray(content)) for (const v of content) lists.add(name, v);
    else for (const [scope, values] of Object.entries(content)) for (const v of values) lists.add(name, v, scope);
  }
  return lists;
}

function nowOf(request: unknown): number {
  const date = (request as { transactionData?: { transactionDate?: unknown } }).transactionData?.transactionDate;
  const ms = typeof date === 'string' ? Date.parse(date) : NaN;
  return Number.isNaN(ms) ? Date.UTC(2024, 0, 1) : ms;
}

export function runCase(ruleset: CompiledRuleset, base: unknown, c: RuleTestCase): string[] {
  const runtime = new RulesRuntime(ruleset, {
    lists: listsOf(c),
    screeningScore: (kind, name) => toDecimal(c.screening?.[kind]?.[name] ?? 0)!,
    ipCountry: (ip) => c.ipCountries?.[ip],
  });
  const request = deepMerge(base, c.request);
  const now = nowOf(request);
  // Oldest first, so velocity and history see time moving forward.
  const history = [...(c.history ?? [])].sort((a, b) => agoMs(b.ago) - agoMs(a.ago));
  for (const h of history) {
    const past = deepMerge(base, h.request);
    for (let i = 0; i < (h.repeat ?? 1); i++) runtime.record(past, now - agoMs(h.ago));
  }
  const result = runtime.evaluate(request, now);
  const fired = new Set(result.fired.map((f) => f.id));
  const known = new Set(ruleset.rules.map((r) => r.id));
  const failures: string[] = [];
  for (const id of [...(c.fires ?? []), ...(c.notFires ?? [])]) if (!known.has(id)) failures.push(`unknown rule ${id}`);
  for (const id of c.fires ?? []) if (known.has(id) && !fired.has(id)) failures.push(`expected ${id} to fire`);
  for (const id of c.notFires ?? []) if (fired.has(id)) failures.push(`expected ${id} not to fire`);
  if (c.action !== undefined && c.action !== result.action.result)
    failures.push(`expected action ${c.action}, got ${result.action.result}`);
  if (failures.length > 0) failures.push(`fired: ${[...fired].join(', ') || '(none)'}; riskScore ${result.riskScore}`);
  return failures;
}

/** Parses and runs one test file; format problems are reported as a failing pseudo-case. */
export function runTestFile(ruleset: CompiledRuleset, base: unknown, file: string, text: string): RuleTestResult[] {
  let parsed: z.infer<typeof RuleTestFileSchema>;
  try {
    parsed = RuleTestFileSchema.parse(JSON.parse(text));
  } catch (e) {
    const detail = e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message;
    return [{ file, name: '(file format)', failures: [detail] }];
  }
  return parsed.cases.map((c) => ({ file, name: c.name, failures: runCase(ruleset, base, c) }));
}
