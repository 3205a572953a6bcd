/**
 * The synchronous name matcher over one or more lists: `screen()` for the screening API, `bestScore()`
 * for the rule language's instant path. A matcher is immutable; refreshing a list means building a new
 * matcher and swapping the reference.
 */
import { LRUCache } from 'lru-cache';
import type { ListType, ScreeningList, ScreeningRecord } from './records.js';
import { buildNameIndex, gluedKeys, gluedNames, type NameIndex } from './name-index.js';
import { nameForms } from './normalise.js';
import { ABJAD } from './skeleton.js';
import { subjectRecord } from './subject-record.js';
import { GLUED_SIMILARITY, alignScore, attributeAdjustment, maxAttributeBonus, type QueryAttributes } from './score.js';
import { TokenMatcher, type QueryToken } from './token-match.js';

export interface ScreenQuery extends QueryAttributes {
  name: string;
  /** Minimum confidenceScore, 0–100 (default 85). */
  threshold?: number;
  /** Maximum results per list type (default 10). */
  limit?: number;
  /** Only these list names (default: all). */
  lists?: readonly string[];
  /** Only these list types (default: both). */
  types?: readonly ListType[];
}

export type ScreenResult = Record<ListType, ScreeningRecord[]>;

export interface ListSummary {
  name: string;
  type: ListType;
  version: string;
  contentHash: string;
  publishedAt: string | null;
  records: number;
}

export interface Matcher {
  screen(query: ScreenQuery): ScreenResult;
  /** Best confidenceScore (0–100) of `name` on lists of `type`; 0 when nothing scores 50 or more. */
  bestScore(name: string, type: ListType): number;
  readonly lists: readonly ListSummary[];
}

export const DEFAULT_THRESHOLD = 85;
export const DEFAULT_LIMIT = 10;
/** Long inputs (a pasted address) are cut: more tokens only cost time, the first ones identify. */
export const MAX_QUERY_TOKENS = 8;
const BEST_SCORE_FLOOR = 50;
/** An initial matched to the given name it begins counts as a similarity of 0.9 (f(s) = s²): short of the name itself. */
export const INITIAL_CONTRIBUTION = 0.81;
/**
 * Names whose best score a matcher keeps. The instant path screens a counterparty on every payment, and the
 * same counterparties recur; a matcher never changes (new list data means a new matcher), so nothing goes stale.
 */
const BEST_SCORE_MEMO = 50_000;

/**
 * The name part of confidenceScore: the name score (0–1) squared, times 100. Squaring spreads the top of the scale,
 * where names that differ by a dropped middle name or a letter sit close together, so that the customary threshold
 * of 85 keeps its false-positive rate (about 0.3 % of non-listed people) while the scorer forgives dropped parts:
 * a name score of 0.92 is a confidence of 85. searchScore stays the unsquared name score.
 */
export const nameConfidence = (score: number): number => score * score * 100;
/** The name score a confidence needs: the inverse of nameConfidence, for pruning. */
const rawScore = (confidence: number): number => Math.sqrt(confidence / 100);

interface Hit {
  entry: number;
  nameScore: number;
  confidence: number;
}

/** `index`: the lists' index when it is already built (read from the cache folder by indexFor). */
export function createMatcher(lists: readonly ScreeningList[], index: NameIndex = buildNameIndex(lists)): Matcher {
  const tokens = new TokenMatcher(index);
  const nameCount = index.nameEntry.length;
  const accumulated = new Float64Array(nameCount);
  // -1 marks an entry not seen by the current query (a seen entry may score 0).
  const bestByEntry = new Float64Array(index.entries.length).fill(-1);
  // Names and entries the current query reached, in arrays as long as the index: a query with common tokens
  // reaches thousands of names, and an array emptied by `length = 0` gives its storage back and regrows it.
  // Each is reached once per query: every posting adds a positive amount (weights are logs of ratios above 1),
  // and an entry's best score is at least 0 once recorded.
  const touchedNames = new Int32Array(nameCount);
  let namesTouched = 0;
  const touchedEntries = new Int32Array(index.entries.length);
  let entriesTouched = 0;
  const memo = new LRUCache<string, number>({ max: BEST_SCORE_MEMO });
  const bestBySubject = new Map<number, Hit>();

  // The two sides of nameScore's alignment, built once: a query scores hundreds of candidate names, and fresh
  // closures per name cost more than the alignment itself. `scored` and `start` say which pair is aligned.
  let scored: QueryToken[] = [];
  let start = 0;
  const querySide = {
    count: 0,
    weight: (i: number) => scored[i]!.weight,
    tieKey: (i: number) => scored[i]!.text,
    particle: (i: number) => scored[i]!.particle,
  };
  const nameSide = {
    count: 0,
    person: false,
    weight: (j: number) => index.weights[index.nameTokens[start + j]!]!,
    particle: (j: number) => tokens.particles[index.nameTokens[start + j]!]!,
  };
  const contribution = (i: number, j: number): number => {
    const q = scored[i]!;
    const token = index.nameTokens[start + j]!;
    const c = q.similar.get(token);
    if (c !== undefined) return c;
    // An initial stands for a person's given name or patronymic that begins with it ("V. V. Putin").
    const word = index.vocab[token]!;
    return q.initial && nameSide.person && word.length > 1 && word.charCodeAt(0) === q.text.charCodeAt(0) ? INITIAL_CONTRIBUTION : 0;
  };

  const paired = new Uint8Array(MAX_QUERY_TOKENS);

  /**
   * `bare`: the query without its initials, when it has some and more. Initials that all agree with a name confirm
   * it, so they never score it below what the query scores without them: "V. V. Putin" is not further from PUTIN,
   * Vladimir Vladimirovich than "Putin" is (an initial's contribution, 0.81, is below a surname's score alone).
   */
  function nameScore(query: QueryToken[], bare: QueryToken[] | null, nameId: number): number {
    scored = query;
    start = index.nameStart[nameId]!;
    querySide.count = query.length;
    nameSide.count = index.nameStart[nameId + 1]! - start;
    nameSide.person = index.entries[index.nameEntry[nameId]!]!.entry.entityType === 'Person';
    const score = alignScore(querySide, nameSide, contribution, bare ? paired : undefined);
    if (!bare) return score;
    for (let i = 0; i < query.length; i++) if (query[i]!.initial && !paired[i]) return score;
    scored = bare;
    querySide.count = bare.length;
    return Math.max(score, alignScore(querySide, nameSide, contribution));
  }

  /**
   * Scores every entry with a name that can reach `threshold` and hands each subject (its best entry, best name
   * score, confidence) at or above it to `found`, in no particular order. Each form of the query's name (particles
   * split, short given names spelled out) is a pass of its own; an entry keeps its best.
   */
  function collect(q: ScreenQuery, threshold: number, found: (entry: number, nameScore: number, confidence: number) => void): void {
    const forms = nameForms(q.name).map((f) => f.slice(0, MAX_QUERY_TOKENS));
    if (!forms.length) return;
    const abjad = ABJAD.test(q.name);
    const allowed = (entry: number): boolean => {
      const e = index.entries[entry]!;
      return (!q.types || q.types.includes(e.listType)) && (!q.lists || q.lists.includes(e.listName));
    };
    const record = (nameId: number, score: number): void => {
      const entry = index.nameEntry[nameId]!;
      if (!allowed(entry)) return;
      if (bestByEntry[entry] === -1) touchedEntries[entriesTouched++] = entry;
      const weighted = score * index.nameFactor[nameId]!;
      if (weighted > bestByEntry[entry]!) bestByEntry[entry] = weighted;
    };
    const recordGlued = (nameId: number): void => record(nameId, GLUED_SIMILARITY);
    const bonus = maxAttributeBonus(q);
    for (const normalised of forms) {
      const query = normalised.map((t) => tokens.match(t, abjad));
      // Upper bound of each name's score, accumulated from what each query token adds to the names it reaches.
      for (const { names, adds } of query) {
        for (let k = 0; k < names.length; k++) {
          const n = names[k]!;
          if (accumulated[n] === 0) touchedNames[namesTouched++] = n;
          accumulated[n]! += adds[k]!;
        }
      }
      const queryWeight = query.reduce((sum, qt) => sum + qt.weight, 0);
      // What initials can add to a person's name, beyond the postings accumulated above.
      const initials = query.reduce((sum, qt) => sum + (qt.initial ? qt.weight * INITIAL_CONTRIBUTION : 0), 0);
      const bare = initials > 0 && query.some((qt) => !qt.initial) ? query.filter((qt) => !qt.initial) : null;
      // Confidence is rounded: a name scoring half a point under (threshold - bonus) can still be reported.
      const needed = rawScore(Math.max(0, threshold - bonus - 0.5));
      let bound = needed * queryWeight - initials;
      if (bare) bound = Math.min(bound, needed * bare.reduce((sum, qt) => sum + qt.weight, 0));
      for (let k = 0; k < namesTouched; k++) {
        const n = touchedNames[k]!;
        if (accumulated[n]! >= bound) record(n, nameScore(query, bare, n));
        accumulated[n] = 0;
      }
      namesTouched = 0;
      for (const key of gluedKeys(normalised)) gluedNames(index, key, recordGlued);
    }

    // One result per subject: the entry of its lists that scored best.
    for (let k = 0; k < entriesTouched; k++) {
      const entry = touchedEntries[k]!;
      const score = bestByEntry[entry]!;
      bestByEntry[entry] = -1;
      const confidence = Math.max(
        0,
        Math.min(100, Math.round(nameConfidence(score) + attributeAdjustment(index.entries[entry]!.entry, q))),
      );
      if (confidence < threshold) continue;
      const subject = index.subjectOf[entry]!;
      const best = bestBySubject.get(subject);
      // Ties go to the entry of the list loaded first, so the record shown does not depend on the query's path.
      if (
        !best ||
        confidence > best.confidence ||
        (confidence === best.confidence && (score > best.nameScore || (score === best.nameScore && entry < best.entry)))
      )
        bestBySubject.set(subject, { entry, nameScore: score, confidence });
    }
    entriesTouched = 0;
    for (const hit of bestBySubject.values()) found(hit.entry, hit.nameScore, hit.confidence);
    bestBySubject.clear();
  }

  function search(q: ScreenQuery, threshold: number): Hit[] {
    const hits: Hit[] = [];
    collect(q, threshold, (entry, nameScore, confidence) => hits.push({ entry, nameScore, confidence }));
    return hits.sort((a, b) => b.confidence - a.confidence || b.nameScore - a.nameScore || a.entry - b.entry);
  }

  return {
    lists: lists.map((l) => ({
      name: l.name,
      type: l.type,
      version: l.version,
      contentHash: l.contentHash,
      publishedAt: l.publishedAt,
      records: l.entries.length,
    })),

    screen(q) {
      const limit = q.limit ?? DEFAULT_LIMIT;
      const result: ScreenResult = { pep: [], sanction: [] };
      for (const hit of search(q, q.threshold ?? DEFAULT_THRESHOLD)) {
        const { listType } = index.entries[hit.entry]!;
        const bucket = result[listType];
        if (bucket.length >= limit) continue;
        const members = index.subjectEntries.get(index.subjectOf[hit.entry]!) ?? [hit.entry];
        const shown = members.filter((m) => m === hit.entry || !q.lists || q.lists.includes(index.entries[m]!.listName));
        bucket.push({
          ...subjectRecord(
            index.entries[hit.entry]!.entry,
            shown.map((m) => index.entries[m]!.entry),
          ),
          searchScore: Math.round(hit.nameScore * 1000) / 10,
          confidenceScore: hit.confidence,
          confirmedAt: null,
        });
      }
      return result;
    },

    bestScore(name, type) {
      const key = `${type}\u0000${name}`;
      let score = memo.get(key);
      if (score === undefined) {
        // Only the top confidence is wanted: a common name has hundreds of candidates not worth sorting.
        let best = 0;
        collect({ name, types: [type] }, BEST_SCORE_FLOOR, (_entry, _nameScore, confidence) => {
          if (confidence > best) best = confidence;
        });
        memo.set(key, (score = best));
      }
      return score;
    },
  };
}
