/**
 * Name and attribute scoring.
 *
 * Name score (0–1): names are aligned order-free, best pair first (greedy on similarity × weight); a particle
 * (particles.ts) then pairs only beside the name it prefixes.
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
import { sameParticleKind } from './particles.js';

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
  /** Token i's particle code (particles.ts), 0 for a name; without it, no token is a particle. */
  particle?(i: number): number;
}

/** The candidate side: `person` caps what its unmatched tokens cost. */
export interface CandidateSide extends AlignSide {
  person: boolean;
}

/**
 * Greedy best-pair alignment of the names. `contribution(i, j)` is f(sim) of query token i and candidate token j.
 * Ties are broken by `tieKey` (the query token's text), never by position, so reordering the query's
 * names cannot change the score. `paired`, when given, is set to 1 for each query token given a partner.
 * Particles are paired after the names, each only beside the name it prefixes (matchParticles): where a particle
 * stands is all that position decides.
 */
export function alignScore(
  query: AlignSide & { tieKey(i: number): string },
  candidate: CandidateSide,
  contribution: (i: number, j: number) => number,
  paired?: Uint8Array,
): number {
  const queryParticles = particlesOf(query, 'queryParticle');
  const candidateParticles = particlesOf(candidate, 'candidateParticle');
  const qp = scratch.queryParticle;
  const cp = scratch.candidateParticle;
  let n = 0;
  let queryWeight = 0;
  for (let i = 0; i < query.count; i++) {
    const w = query.weight(i);
    queryWeight += w;
    if (queryParticles && qp[i]) continue;
    for (let j = 0; j < candidate.count; j++) {
      if (candidateParticles && cp[j]) continue;
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
  if ((n === 0 && !(queryParticles && candidateParticles)) || queryWeight <= 0) {
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
  const partner = scratch.partner.length < query.count ? (scratch.partner = new Int32Array(query.count * 2)) : scratch.partner;
  partner.fill(-1, 0, query.count);
  let matched = 0;
  let names = 0;
  let only = 0;
  for (let k = 0; k < n; k++) {
    const p = order[k]!;
    if (usedQ[pi[p]!] || usedC[pj[p]!]) continue;
    usedQ[pi[p]!] = 1;
    usedC[pj[p]!] = 1;
    partner[pi[p]!] = pj[p]!;
    matched += value[p]!;
    names++;
    only = value[p]! / query.weight(pi[p]!);
  }
  // A particle confirms the name it prefixes and cannot make one name in common a whole-name match: beside the only
  // name paired, it counts as much as that name's similarity ("Abu Muhammadu" is as near "Abu Muhammad" as
  // Muhammadu is to Muhammad).
  if (queryParticles && candidateParticles) matched += matchParticles(query, candidate.count, usedQ, usedC) * (names === 1 ? only : 1);
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
  /** The candidate token each query token was paired with, -1 for none. */
  partner: new Int32Array(16),
  queryParticle: new Uint8Array(16),
  candidateParticle: new Uint8Array(16),
  /** matchParticles: the query particle each candidate particle is matched with, -1 for none; visited flags. */
  particleOwner: new Int32Array(16),
  visited: new Uint8Array(16),
};

/** Reads a side's particle codes into its working array; the number of particles. */
function particlesOf(side: AlignSide, which: 'queryParticle' | 'candidateParticle'): number {
  if (!side.particle) return 0;
  const codes = scratch[which].length < side.count ? (scratch[which] = new Uint8Array(side.count * 2)) : scratch[which];
  let count = 0;
  for (let i = 0; i < side.count; i++) if ((codes[i] = side.particle(i))) count++;
  return count;
}

/** The first name (not a particle) after position i of a side's codes, -1 for none. */
function nameAfter(codes: Uint8Array, count: number, i: number): number {
  for (let k = i + 1; k < count; k++) if (!codes[k]) return k;
  return -1;
}

function nameBefore(codes: Uint8Array, i: number): number {
  for (let k = i - 1; k >= 0; k--) if (!codes[k]) return k;
  return -1;
}

/**
 * Whether query particle i may pair with candidate particle j, once the names are paired. A listed name is written
 * in its natural order (normalise.ts), so its particle stands before the name it prefixes. A query's particle
 * prefixes the name after it, or, written in reverse order ("Rahim Abdul BA'ASYIR"), the name before it; that name
 * must be paired with the one the candidate's particle prefixes. A query may also shorten a compound to its prefix,
 * as "Abdul" is said for Abdul Aziz ("Abdul ABBASIN" for "ABBASIN, Abdul Aziz"): then the name after the query's
 * particle is paired with the name after the compound. A particle never joins a name
 * it does not prefix ("Abd Muktar" is not "Muktar Abd al-Rahim"), and one prefixing nothing pairs only with the
 * same word prefixing nothing.
 */
function particlesPair(queryCount: number, candidateCount: number, i: number, j: number): boolean {
  const qp = scratch.queryParticle;
  const cp = scratch.candidateParticle;
  if (!sameParticleKind(qp[i]!, cp[j]!)) return false;
  const after = nameAfter(qp, queryCount, i);
  const prefixed = nameAfter(cp, candidateCount, j);
  if (prefixed < 0) return after < 0 && qp[i] === cp[j];
  const before = nameBefore(qp, i);
  if (before >= 0 && scratch.partner[before] === prefixed) return true;
  if (after < 0) return false;
  const shared = scratch.usedC[prefixed] ? prefixed : nameAfter(cp, candidateCount, prefixed);
  return shared >= 0 && scratch.partner[after] === shared;
}

/**
 * Pairs the query's particles with the candidate's after the names (the most pairs: a name may hold several, as
 * "Abdul Satar Abdul Manan" does), marks them used, and returns what they add: each its weight.
 */
function matchParticles(query: AlignSide, candidateCount: number, usedQ: Uint8Array, usedC: Uint8Array): number {
  const owner =
    scratch.particleOwner.length < candidateCount ? (scratch.particleOwner = new Int32Array(candidateCount * 2)) : scratch.particleOwner;
  owner.fill(-1, 0, candidateCount);
  const visited = scratch.visited.length < candidateCount ? (scratch.visited = new Uint8Array(candidateCount * 2)) : scratch.visited;
  // Kuhn's augmenting paths: a name holds a handful of particles at most.
  const augment = (i: number): boolean => {
    for (let j = 0; j < candidateCount; j++) {
      if (!scratch.candidateParticle[j] || visited[j] || !particlesPair(query.count, candidateCount, i, j)) continue;
      visited[j] = 1;
      if (owner[j] === -1 || augment(owner[j]!)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < query.count; i++) {
    if (!scratch.queryParticle[i]) continue;
    visited.fill(0, 0, candidateCount);
    augment(i);
  }
  let added = 0;
  for (let j = 0; j < candidateCount; j++) {
    const i = owner[j]!;
    if (i === -1) continue;
    usedQ[i] = 1;
    usedC[j] = 1;
    added += query.weight(i);
  }
  return added;
}

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
