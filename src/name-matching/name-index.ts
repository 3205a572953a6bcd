/**
 * Inverted index over every name and alias of every list. Names are tokenised once; the vocabulary of
 * distinct tokens is itself indexed by character trigrams and phonetic keys, so a query token (typos
 * included) finds its similar vocabulary tokens without looking at the rest, and each vocabulary token
 * lists the names that contain it. Nothing in a query walks the whole list.
 */
import type { ListEntry, ListType, ScreeningList } from './records.js';
import { nameForms } from './normalise.js';
import { phoneticKeys } from './phonetic.js';
import { skeleton } from './skeleton.js';
import { subjectsOf } from './subjects.js';
import { particleCode } from './particles.js';

export interface IndexedEntry {
  entry: ListEntry;
  listType: ListType;
  listName: string;
}

/**
 * A name the list marks as weak (a UN "Low" quality alias) counts at this share of its score; a one-word weak
 * name ("Chairman", "Israel", "Pharaoh") at the lower share, which no exact match lifts to the default threshold.
 */
export const WEAK_ALIAS_FACTOR = 0.9;
export const WEAK_WORD_FACTOR = 0.75;

/** Padded trigrams ("^ab", "abc", "bc$"); a token of two letters or fewer still yields two grams. */
export function trigrams(token: string): string[] {
  const padded = `^${token}$`;
  const grams: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3));
  if (!grams.length) grams.push(padded);
  return grams;
}

/**
 * A name's glued forms: tokens joined in order, reversed ("MAKHLUF, Rami" → "ramimakhluf"), sorted, and with the
 * first token moved last ("HLAING, Min Aung" → "minaunghlaing", the name as Burmese writes it, in one word), so
 * "Ramimakhlouf" meets "Rami Makhlouf" whichever order either side uses. A particle moves with the name it
 * prefixes, and one prefixing nothing stays last: reordered, "MUSA ABD" must not become "abdmusa".
 */
export function gluedKeys(tokens: readonly string[]): string[] {
  const units: string[] = [];
  let prefix = '';
  for (const t of tokens) {
    if (particleCode(t)) prefix += t;
    else {
      units.push(prefix + t);
      prefix = '';
    }
  }
  return [
    ...new Set([
      units.join('') + prefix,
      [...units].reverse().join('') + prefix,
      [...units].sort().join('') + prefix,
      units.slice(1).join('') + (units[0] ?? '') + prefix,
    ]),
  ];
}

/** Many short arrays as one: the values end to end and where each starts (one more offset than arrays). */
export function flatten(arrays: Iterable<ArrayLike<number>>): { offsets: Int32Array; values: Int32Array } {
  const list = [...arrays];
  const offsets = new Int32Array(list.length + 1);
  for (let i = 0; i < list.length; i++) offsets[i + 1] = offsets[i]! + list[i]!.length;
  const values = new Int32Array(offsets[list.length]!);
  for (let i = 0; i < list.length; i++) values.set(list[i]!, offsets[i]!);
  return { offsets, values };
}

/** The arrays flatten() joined, as views on its one buffer. */
export const split = (offsets: Int32Array, values: Int32Array): Int32Array[] =>
  Array.from({ length: offsets.length - 1 }, (_, i) => values.subarray(offsets[i]!, offsets[i + 1]!));

class Postings {
  private readonly lists = new Map<string, number[]>();
  add(key: string, id: number): void {
    const list = this.lists.get(key);
    if (!list) this.lists.set(key, [id]);
    else if (list[list.length - 1] !== id) list.push(id);
  }
  /**
   * Views on one buffer: an array of its own per key costs an ArrayBuffer and its backing store each, tens of
   * thousands of objects that every mark-compact walks while screening waits.
   */
  freeze(): Map<string, Int32Array> {
    const { offsets, values } = flatten(this.lists.values());
    const views = split(offsets, values);
    return new Map([...this.lists.keys()].map((key, i) => [key, views[i]!]));
  }
}

/** FNV-1a of a glued form: the index keeps glued forms as numbers, not as 155k strings on the heap. */
export function gluedHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

export interface NameIndex {
  readonly entries: readonly IndexedEntry[];
  readonly vocab: readonly string[];
  readonly vocabIds: ReadonlyMap<string, number>;
  /** Rare-token weight (inverse document frequency over names), per vocabulary token. */
  readonly weights: Float64Array;
  readonly maxWeight: number;
  /** Vocabulary token id → ids of the names containing it: tokenNameIds[tokenNameStart[id] .. tokenNameStart[id + 1]). */
  readonly tokenNameStart: Int32Array;
  readonly tokenNameIds: Int32Array;
  /** Trigram / phonetic key → vocabulary token ids. */
  readonly gramTokens: ReadonlyMap<string, Int32Array>;
  readonly phoneticTokens: ReadonlyMap<string, Int32Array>;
  /** Consonant skeleton → vocabulary token ids, for queries written in Arabic or Hebrew script. */
  readonly skeletonTokens: ReadonlyMap<string, Int32Array>;
  /** Per name, the share of its score it can give (below 1 for weak aliases). */
  readonly nameFactor: Float64Array;
  /**
   * Entry → its subject: entries of several lists that are one person or organisation (same name, and for people
   * the same year of birth) share one subject id, the index of the subject's first entry. `subjectEntries` lists
   * each subject's entries.
   */
  readonly subjectOf: Int32Array;
  readonly subjectEntries: ReadonlyMap<number, readonly number[]>;
  /**
   * Glued forms as (gluedHash, name id) pairs sorted by hash: gluedNames() reads them, checking each name's own
   * glued forms, since two forms can share a hash.
   */
  readonly gluedHashes: Int32Array;
  readonly gluedNameIds: Int32Array;
  /** Name id → entry index, and its token ids as nameTokens[nameStart[id] .. nameStart[id + 1]). */
  readonly nameEntry: Int32Array;
  readonly nameStart: Int32Array;
  readonly nameTokens: Int32Array;
}

export function buildNameIndex(lists: readonly ScreeningList[]): NameIndex {
  const entries: IndexedEntry[] = [];
  const vocab: string[] = [];
  const vocabIds = new Map<string, number>();
  const tokenNames: number[][] = [];
  const glued: { hash: number; name: number }[] = [];
  const nameEntry: number[] = [];
  const nameStart: number[] = [0];
  const nameTokens: number[] = [];
  const nameFactor: number[] = [];

  for (const list of lists) {
    for (const entry of list.entries) {
      const entryIndex = entries.push({ entry, listType: list.type, listName: list.name }) - 1;
      const seen = new Set<string>();
      const weak = new Set(entry.weakAliases ?? []);
      const person = entry.entityType === 'Person';
      // Strong names first, so that a form both a strong and a weak name yield keeps the strong weight.
      const names = [entry.name, ...entry.aliases].sort((a, b) => Number(weak.has(a)) - Number(weak.has(b)));
      for (const name of names)
        for (const tokens of nameForms(name, { person })) {
          const key = tokens.join(' ');
          if (seen.has(key)) continue;
          seen.add(key);
          const nameId = nameEntry.push(entryIndex) - 1;
          nameFactor.push(weak.has(name) ? (tokens.length > 1 ? WEAK_ALIAS_FACTOR : WEAK_WORD_FACTOR) : 1);
          for (const token of tokens) {
            let id = vocabIds.get(token);
            if (id === undefined) {
              id = vocab.push(token) - 1;
              vocabIds.set(token, id);
              tokenNames.push([]);
            }
            const posting = tokenNames[id]!;
            if (posting[posting.length - 1] !== nameId) posting.push(nameId);
            nameTokens.push(id);
          }
          nameStart.push(nameTokens.length);
          for (const g of gluedKeys(tokens)) glued.push({ hash: gluedHash(g), name: nameId });
        }
    }
  }

  const grams = new Postings();
  const phonetic = new Postings();
  const skeletons = new Postings();
  vocab.forEach((token, id) => {
    for (const g of new Set(trigrams(token))) grams.add(g, id);
    for (const k of phoneticKeys(token)) phonetic.add(k, id);
    if (/[a-z]/.test(token)) skeletons.add(skeleton(token), id);
  });
  const { subjectOf, subjectEntries } = subjectsOf(entries);
  const nameCount = nameEntry.length;
  const weights = Float64Array.from(tokenNames, (names) => Math.log((nameCount + 1) / (names.length + 0.5)));
  const tokenNameIndex = flatten(tokenNames);
  glued.sort((a, b) => a.hash - b.hash || a.name - b.name);
  return {
    entries,
    vocab,
    vocabIds,
    weights,
    maxWeight: Math.log((nameCount + 1) / 0.5),
    tokenNameStart: tokenNameIndex.offsets,
    tokenNameIds: tokenNameIndex.values,
    gramTokens: grams.freeze(),
    phoneticTokens: phonetic.freeze(),
    skeletonTokens: skeletons.freeze(),
    nameFactor: Float64Array.from(nameFactor),
    subjectOf,
    subjectEntries,
    gluedHashes: Int32Array.from(glued, (g) => g.hash),
    gluedNameIds: Int32Array.from(glued, (g) => g.name),
    nameEntry: Int32Array.from(nameEntry),
    nameStart: Int32Array.from(nameStart),
    nameTokens: Int32Array.from(nameTokens),
  };
}

/** Hands `visit` every name with the glued form `key`. */
export function gluedNames(index: NameIndex, key: string, visit: (nameId: number) => void): void {
  const hash = gluedHash(key);
  const hashes = index.gluedHashes;
  let lo = 0;
  let hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hashes[mid]! < hash) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < hashes.length && hashes[k] === hash; k++) {
    const nameId = index.gluedNameIds[k]!;
    const tokens = Array.from(index.nameTokens.subarray(index.nameStart[nameId]!, index.nameStart[nameId + 1]!), (id) => index.vocab[id]!);
    if (gluedKeys(tokens).includes(key)) visit(nameId);
  }
}
