// The function catalogue: types for the checker, implementations shared by the compiler and the reference
// interpreter. Functions get their arguments already evaluated; a missing argument makes the result missing
// (the callers check), except for key-argument functions which read the FeatureContext only.
import { Decimal } from 'decimal.js';
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import type { FeatureContext, ScreeningKind } from './context.js';
import { DAY_MS, type ContextFeature, type FieldType } from './schema.js';
import { Dec, decimalOfInt, ZERO, type Value } from './values.js';

export type ParamType = FieldType | 'numeric';

export interface Runtime {
  readonly ctx: FeatureContext;
  readonly utcOffsetMs: number;
}

type Impl = (rt: Runtime, a: never, b: never) => Value;

export interface Builtin {
  readonly params: readonly ParamType[];
  readonly returns: FieldType;
  readonly feature?: ContextFeature;
  /** The single argument is a name from the schema (firstSeenPairs or velocityKeys), not an expression. */
  readonly keyArg?: 'firstSeenPairs' | 'velocityKeys';
  /** Index of an argument that must be a literal regular expression. */
  readonly regexArg?: number;
  readonly impl: Impl;
}

/** Bounded: backtests compile patterns uploaded by anyone with an API key, and none of them should stay forever. */
const regexCache = new LRUCache<string, RE2JS>({ max: 1_000 });

/**
 * Analyst regexes are case-insensitive, compiled once, and run by RE2, in time linear in the text: with a
 * backtracking engine a pattern such as `^(a+)+$` held the process for good on a 41-character narration, and the
 * instant path runs rules on every payment. RE2 has no look-around or back-references; the checker reports them.
 */
export function regex(pattern: string): RE2JS {
  let re = regexCache.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    regexCache.set(pattern, re);
  }
  return re;
}

const HOUR_MS = 3_600_000;
const since = (unitMs: number) => (rt: Runtime, ts: number) => new Dec(rt.ctx.now - ts).div(unitMs);
const screening = (kind: ScreeningKind) => (rt: Runtime, name: string) => {
  const score = rt.ctx.screeningScore?.(kind, name);
  return score === undefined ? ZERO : score instanceof Decimal ? score : new Dec(score);
};

export const BUILTINS: Readonly<Record<string, Builtin>> = {
  lower: { params: ['string'], returns: 'string', impl: (_, s: string) => s.toLowerCase() },
  upper: { params: ['string'], returns: 'string', impl: (_, s: string) => s.toUpperCase() },
  length: { params: ['string'], returns: 'integer', impl: (_, s: string) => decimalOfInt(s.length) },
  contains: { params: ['string', 'string'], returns: 'boolean', impl: (_, s: string, part: string) => s.includes(part) },
  startsWith: { params: ['string', 'string'], returns: 'boolean', impl: (_, s: string, p: string) => s.startsWith(p) },
  endsWith: { params: ['string', 'string'], returns: 'boolean', impl: (_, s: string, p: string) => s.endsWith(p) },
  matches: { params: ['string', 'string'], returns: 'boolean', regexArg: 1, impl: (_, s: string, p: string) => regex(p).test(s) },
  abs: { params: ['numeric'], returns: 'decimal', impl: (_, x: Decimal) => x.abs() },
  min: { params: ['numeric', 'numeric'], returns: 'decimal', impl: (_, x: Decimal, y: Decimal) => (x.lte(y) ? x : y) },
  max: { params: ['numeric', 'numeric'], returns: 'decimal', impl: (_, x: Decimal, y: Decimal) => (x.gte(y) ? x : y) },
  hourOfDay: {
    params: ['timestamp'],
    returns: 'integer',
    impl: (rt, ts: number) => decimalOfInt(Math.floor(((((ts + rt.utcOffsetMs) % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS)),
  },
  daysSince: { params: ['timestamp'], returns: 'decimal', feature: 'clock', impl: since(24 * HOUR_MS) },
  hoursSince: { params: ['timestamp'], returns: 'decimal', feature: 'clock', impl: since(HOUR_MS) },
  minutesSince: { params: ['timestamp'], returns: 'decimal', feature: 'clock', impl: since(60_000) },
  firstSeen: {
    params: ['string'],
    returns: 'boolean',
    feature: 'history',
    keyArg: 'firstSeenPairs',
    impl: (rt, pair: string) => rt.ctx.firstSeen(pair),
  },
  lastSeen: {
    params: ['string'],
    returns: 'timestamp',
    feature: 'history',
    keyArg: 'velocityKeys',
    impl: (rt, key: string) => rt.ctx.lastSeen(key),
  },
  sanctionsScore: { params: ['string'], returns: 'decimal', feature: 'screening', impl: screening('sanctions') },
  pepScore: { params: ['string'], returns: 'decimal', feature: 'screening', impl: screening('pep') },
  ipCountry: { params: ['string'], returns: 'string', feature: 'geo', impl: (rt, ip: string) => rt.ctx.ipCountry?.(ip) },
};

export const VELOCITY_FNS: Readonly<Record<string, { arg: 'none' | 'numeric' | 'any'; returns: FieldType }>> = {
  count: { arg: 'none', returns: 'integer' },
  sum: { arg: 'numeric', returns: 'decimal' },
  avg: { arg: 'numeric', returns: 'decimal' },
  max: { arg: 'numeric', returns: 'decimal' },
  distinct: { arg: 'any', returns: 'integer' },
};
