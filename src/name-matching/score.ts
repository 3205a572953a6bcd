/**
 * Name and attribute scoring.
 *
 * Name score (0–1): tokens are aligned order-free, best pair first (greedy on similarity × weight).
 * Each query token contributes its rare-token weight × f(similarity); a query token without a partner
 * contributes nothing, and a candidate token left unmatched (a middle name the query omits) costs a
 * fraction of its weight:
 *
 *   score = Σ w(q)·f(sim(q, c)) / (Σ w(q) + UNMATCHED_PENALTY · min(Σ w(c unmatched), MAX_UNMATCHED_SHARE · Σ w(q)))
 *
 * The cap, on people's names, makes several omitted parts cost no more than about one: long Arabic names are often
 * written with two or three of their five parts ("Mohammad al-Tikriti" for "Mohammad Barzan Ibrahim Hasan
 * al-Tikriti"). An organisation's name is not shortened that way: two of its words are not the organisation.
 *
 * f(s) = s² below 1, and 0 under MIN_TOKEN_SIMILARITY: Jaro-Winkler is generous to unrelated short
 * tokens ("john"/"juan" = 0.70), so weak pairs must count for nothing rather than for 70%.
 */
import type { ListEntry } from './records.js';
import { countryCode } from './countries.js';
import { birthYears } from './sources/dates.js';
import { widened } from '../typed-arrays.js';

export const MIN_TOKEN_SIMILARITY = 0.8;
/** Floor for tokens with equal phonetic keys whose spelling differs a lot ("Khadafy"/"Gaddafi"). */
export const PHONETIC_SIMILARITY = 0.8;
/** Similarity credited when the glued forms agree ("Ramimakhlouf" / "Rami Makhlouf"). */
export const GLUED_SIMILARITY = 0.95;
export const UNMATCHED_PENALTY = 0.1;
export const MAX_UNMATCHED_SHARE = 0.5;

/** What the candidate's unmatched tokens add to the denominator. */
export function unmatchedPenalty(unmatchedWeight: number, queryWeight: number, capped: boolean): number {
  return UNMATCHED_PENALTY * (capped ? Math.min(unmatchedWeight, MAX_UNMATCHED_SHARE * queryWeight) : unmatchedWeight);
}

export function tokenContribution(similarity: number): number {
  return similarity < MIN_TOKEN_SIMILARITY ? 0 : similarity * similarity;
}

/** One side of an alignment: token count, weights, and a key that orders tokens independently of position. */
export interface AlignSide {
  count: number;
  weight(i: number): number;
}

/** The candidate side: `person` caps what its unmatched tokens cost. */
export interface CandidateSide extends AlignSide {
  person: boolean;
}

/**
 * Greedy best-pair alignment. `contribution(i, j)` is f(sim) of query token i and candidate token j.
 * Ties are broken by `tieKey` (the query token's text), never by position, so reordering the query's
 * tokens cannot change the score. `paired`, when given, is set to 1 for each query token given a partner.
 */
export function alignScore(
  query: AlignSide & { tieKey(i: number): string },
  candidate: CandidateSide,
  contribution: (i: number, j: number) => number,
  paired?: Uint8Array,
): number {
  let n = 0;
  let queryWeight = 0;
  for (let i = 0; i < query.count; i++) {
    const w = query.weight(i);
    queryWeight += w;
    for (let j = 0; j < candidate.count; j++) {
      const c = contribution(i, j);
      if (c > 0) {
        if (n === scratch.value.length) growScratch();
        scratch.value[n] = c * w;
        scratch.i[n] = i;
        scratch.j[n] = j;
        n++;
      }
    }
  }
  if (n === 0 || queryWeight <= 0) {
    paired?.fill(0, 0, query.count);
    return 0;
  }
  const { value, i: pi, j: pj, order } = scratch;
  // Insertion sort, stable like Array.prototype.sort: the pairs are few (query tokens × the candidate tokens
  // similar to them at all).
  for (let k = 0; k < n; k++) {
    let m = k - 1;
    while (m >= 0 && sortsBefore(query, k, order[m]!)) {
      order[m + 1] = order[m]!;
      m--;
    }
    order[m + 1] = k;
  }
  const usedQ = clearedFlags('usedQ', query.count);
  const usedC = clearedFlags('usedC', candidate.count);
  let matched = 0;
  for (let k = 0; k < n; k++) {
    const p = order[k]!;
    if (usedQ[pi[p]!] || usedC[pj[p]!]) continue;
    usedQ[pi[p]!] = 1;
    usedC[pj[p]!] = 1;
    matched += value[p]!;
  }
  if (paired) paired.set(usedQ.subarray(0, query.count));
  let unmatched = 0;
  for (let j = 0; j < candidate.count; j++) if (!usedC[j]) unmatched += candidate.weight(j);
  return matched / (queryWeight + unmatchedPenalty(unmatched, queryWeight, candidate.person));
}

/**
 * alignScore's working arrays, reused: the instant path aligns dozens of candidate names per counterparty, and a
 * fresh array of pair objects, the copy its sort makes and two flag arrays per name were half of all the bytes
 * a decision allocated (the scavenges they cause are what the p99 waits behind). JavaScript runs alignScore
 * to the end before anything else can call it, so one set serves every caller.
 */
const scratch = {
  value: new Float64Array(64),
  i: new Int32Array(64),
  j: new Int32Array(64),
  order: new Int32Array(64),
  usedQ: new Uint8Array(16),
  usedC: new Uint8Array(16),
};

function growScratch(): void {
  const size = scratch.value.length * 2;
  scratch.value = widened(scratch.value, new Float64Array(size));
  scratch.i = widened(scratch.i, new Int32Array(size));
  scratch.j = widened(scratch.j, new Int32Array(size));
  scratch.order = new Int32Array(size);
}

/** Whether pair a goes before pair b: the larger value first, ties by the query token's text, then the candidate position. */
function sortsBefore(query: { tieKey(i: number): string }, a: number, b: number): boolean {
  const { value, i, j } = scratch;
  if (value[a] !== value[b]) return value[a]! > value[b]!;
  const ka = query.tieKey(i[a]!);
  const kb = query.tieKey(i[b]!);
  return ka !== kb ? ka < kb : j[a]! < j[b]!;
}

/** `count` cleared flags: the working array, or a larger one (new arrays are zeroed) when it is too short. */
function clearedFlags(which: 'usedQ' | 'usedC', count: number): Uint8Array {
  if (scratch[which].length < count) return (scratch[which] = new Uint8Array(count * 2));
  return scratch[which].fill(0, 0, count);
}

export interface QueryAttributes {
  /** YYYY, YYYY-MM or YYYY-MM-DD. */
  birthDate?: string | null;
  /** Two-letter code or country name. */
  country?: string | null;
  gender?: string | null;
}

export const ADJUST = {
  birthDateExact: 5,
  birthYearMatch: 3,
  birthYearMismatch: -20,
  countryMatch: 3,
  countryMismatch: -5,
  genderMismatch: -10,
} as const;

/**
 * The most points the attributes a query states can add: lets the matcher prune names that cannot reach the
 * threshold. A query without a birth date or country (the instant path's) can earn none.
 */
export function maxAttributeBonus(q: QueryAttributes): number {
  return (q.birthDate ? ADJUST.birthDateExact : 0) + (q.country ? ADJUST.countryMatch : 0);
}

/**
 * Points added to the name score. Only facts both sides state count: a record without a birth date is
 * neither rewarded nor punished for it. A birth year one off is treated as unknown (lists round ages).
 */
export function attributeAdjustment(entry: ListEntry, q: QueryAttributes): number {
  let points = 0;
  const queryYear = q.birthDate ? birthYears(q.birthDate)[0] : undefined;
  // The entry's years are parsed only when the query has one to compare: the instant path never does.
  const years = queryYear === undefined ? [] : birthYears(entry.birth_date);
  if (queryYear !== undefined && years.length) {
    const exactDate = q.birthDate!.length >= 10 && (entry.birth_date ?? '').split(';').includes(q.birthDate!.slice(0, 10));
    const distance = Math.min(...years.map((y) => Math.abs(y - queryYear)));
    if (exactDate) points += ADJUST.birthDateExact;
    else if (distance === 0) points += ADJUST.birthYearMatch;
    else if (distance > 1) points += ADJUST.birthYearMismatch;
  }
  const country = countryCode(q.country);
  if (country && entry.countries.length) {
    points += entry.countries.includes(country) ? ADJUST.countryMatch : ADJUST.countryMismatch;
  }
  const gender = q.gender?.trim().toLowerCase();
  if (entry.gender && (gender === 'male' || gender === 'female') && gender !== entry.gender) {
    points += ADJUST.genderMismatch;
  }
  return points;
}
