/**
 * Name and attribute scoring.
 *
 * Name score (0–1): tokens are aligned order-free, best pair first (greedy on similarity × weight).
 * Each query token contributes its rare-token weight × f(similarity); a query token without a partner
 * contributes nothing, and a candidate token left unmatched (a middle name the query omits) costs a
 * fraction of its weight:
 *
 *   score = Σ w(q)·f(sim(q, c)) / (Σ w(q) + UNMATCHED_PENALTY · Σ w(c unmatched))
 *
 * f(s) = s² below 1, and 0 under MIN_TOKEN_SIMILARITY: Jaro-Winkler is generous to unrelated short
 * tokens ("john"/"juan" = 0.70), so weak pairs must count for nothing rather than for 70%.
 */
import type { ListEntry } from './records.js';
import { countryCode } from './countries.js';
import { birthYears } from './sources/dates.js';

export const MIN_TOKEN_SIMILARITY = 0.8;
/** Floor for tokens with equal phonetic keys whose spelling differs a lot ("Khadafy"/"Gaddafi"). */
export const PHONETIC_SIMILARITY = 0.8;
/** Similarity credited when the glued forms agree ("Ramimakhlouf" / "Rami Makhlouf"). */
export const GLUED_SIMILARITY = 0.95;
export const UNMATCHED_PENALTY = 0.2;

export function tokenContribution(similarity: number): number {
  return similarity < MIN_TOKEN_SIMILARITY ? 0 : similarity * similarity;
}

/** One side of an alignment: token count, weights, and a key that orders tokens independently of position. */
export interface AlignSide {
  count: number;
  weight(i: number): number;
}

/**
 * Greedy best-pair alignment. `contribution(i, j)` is f(sim) of query token i and candidate token j.
 * Ties are broken by `tieKey` (the query token's text), never by position, so reordering the query's
 * tokens cannot change the score.
 */
export function alignScore(
  query: AlignSide & { tieKey(i: number): string },
  candidate: AlignSide,
  contribution: (i: number, j: number) => number,
): number {
  const pairs: { value: number; i: number; j: number }[] = [];
  let queryWeight = 0;
  for (let i = 0; i < query.count; i++) {
    const w = query.weight(i);
    queryWeight += w;
    for (let j = 0; j < candidate.count; j++) {
      const c = contribution(i, j);
      if (c > 0) pairs.push({ value: c * w, i, j });
    }
  }
  if (!pairs.length || queryWeight <= 0) return 0;
  pairs.sort((a, b) => b.value - a.value || (query.tieKey(a.i) < query.tieKey(b.i) ? -1 : query.tieKey(a.i) > query.tieKey(b.i) ? 1 : a.j - b.j));
  const usedQ = new Uint8Array(query.count);
  const usedC = new Uint8Array(candidate.count);
  let matched = 0;
  for (const p of pairs) {
    if (usedQ[p.i] || usedC[p.j]) continue;
    usedQ[p.i] = 1;
    usedC[p.j] = 1;
    matched += p.value;
  }
  let unmatched = 0;
  for (let j = 0; j < candidate.count; j++) if (!usedC[j]) unmatched += candidate.weight(j);
  return matched / (queryWeight + UNMATCHED_PENALTY * unmatched);
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

/** The most points attributes can add: lets the matcher prune names that cannot reach the threshold. */
export const MAX_ATTRIBUTE_BONUS = ADJUST.birthDateExact + ADJUST.countryMatch;

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
