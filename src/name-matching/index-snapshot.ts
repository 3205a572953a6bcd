/**
 * A built name index as one binary file, so that a start reads the index instead of normalising, keying and
 * grouping sixty thousand names again. Layout: a 4-byte length, a JSON header (key, counts, string keys and each
 * section's place), then the typed arrays, 8-byte aligned. Read back, every array is a view on the file's bytes.
 */
import type { Logger } from '../logger.js';
import { derivedKey, readDerived, writeDerived } from './derived-cache.js';
import { buildNameIndex, flatten, split, type NameIndex } from './name-index.js';
import type { ScreeningList } from './records.js';

type Numbers = Int32Array | Float64Array;

interface Header {
  key: string;
  entries: number;
  maxWeight: number;
  vocab: string[];
  /** Keys of the string-keyed postings, per map. */
  keys: Record<PostingMap, string[]>;
  sections: Record<string, { type: 'i32' | 'f64'; offset: number; length: number }>;
}

const POSTING_MAPS = ['gramTokens', 'phoneticTokens', 'skeletonTokens'] as const;
type PostingMap = (typeof POSTING_MAPS)[number];

export function serialiseIndex(index: NameIndex, key: string): Buffer {
  const arrays: Record<string, Numbers> = {
    weights: index.weights,
    nameFactor: index.nameFactor,
    subjectOf: index.subjectOf,
    nameEntry: index.nameEntry,
    nameStart: index.nameStart,
    nameTokens: index.nameTokens,
    tokenNameStart: index.tokenNameStart,
    tokenNameIds: index.tokenNameIds,
    gluedHashes: index.gluedHashes,
    gluedNameIds: index.gluedNameIds,
  };
  const subjects = [...index.subjectEntries];
  const members = flatten(subjects.map(([, ids]) => ids));
  arrays.subjectIds = Int32Array.from(subjects, ([id]) => id);
  arrays.subjectOffsets = members.offsets;
  arrays.subjectValues = members.values;
  const keys = {} as Header['keys'];
  for (const name of POSTING_MAPS) {
    const map = index[name];
    keys[name] = [...map.keys()];
    const flat = flatten(map.values());
    arrays[`${name}Offsets`] = flat.offsets;
    arrays[`${name}Values`] = flat.values;
  }
  const sections: Header['sections'] = {};
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    sections[name] = { type: array instanceof Float64Array ? 'f64' : 'i32', offset, length: array.length };
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  const header: Header = { key, entries: index.entries.length, maxWeight: index.maxWeight, vocab: [...index.vocab], keys, sections };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const start = Math.ceil((4 + headerBytes.length) / 8) * 8;
  const out = Buffer.alloc(start + offset);
  out.writeUInt32LE(headerBytes.length, 0);
  headerBytes.copy(out, 4);
  for (const [name, array] of Object.entries(arrays))
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), start + sections[name]!.offset);
  return out;
}

/** The index a file holds for these lists, or undefined when it was written for other lists (or another key). */
export function restoreIndex(file: Buffer, lists: readonly ScreeningList[], key: string): NameIndex | undefined {
  const headerLength = file.readUInt32LE(0);
  const header = JSON.parse(file.toString('utf8', 4, 4 + headerLength)) as Header;
  const entries = lists.flatMap((list) => list.entries.map((entry) => ({ entry, listType: list.type, listName: list.name })));
  if (header.key !== key || header.entries !== entries.length) return undefined;
  // Typed-array views need their offsets aligned; a Buffer may sit anywhere in a shared pool.
  const bytes = file.byteOffset % 8 === 0 ? file : Buffer.from(file);
  const start = bytes.byteOffset + Math.ceil((4 + headerLength) / 8) * 8;
  const i32 = (name: string): Int32Array => {
    const s = header.sections[name]!;
    return new Int32Array(bytes.buffer, start + s.offset, s.length);
  };
  const f64 = (name: string): Float64Array => {
    const s = header.sections[name]!;
    return new Float64Array(bytes.buffer, start + s.offset, s.length);
  };
  const postings = (name: PostingMap): Map<string, Int32Array> => {
    const lists = split(i32(`${name}Offsets`), i32(`${name}Values`));
    return new Map(header.keys[name].map((k, i) => [k, lists[i]!]));
  };
  const subjectIds = i32('subjectIds');
  const members = split(i32('subjectOffsets'), i32('subjectValues'));
  return {
    entries,
    vocab: header.vocab,
    vocabIds: new Map(header.vocab.map((token, id) => [token, id])),
    weights: f64('weights'),
    maxWeight: header.maxWeight,
    tokenNameStart: i32('tokenNameStart'),
    tokenNameIds: i32('tokenNameIds'),
    gramTokens: postings('gramTokens'),
    phoneticTokens: postings('phoneticTokens'),
    skeletonTokens: postings('skeletonTokens'),
    nameFactor: f64('nameFactor'),
    subjectOf: i32('subjectOf'),
    subjectEntries: new Map(Array.from(subjectIds, (id, i) => [id, Array.from(members[i]!)])),
    gluedHashes: i32('gluedHashes'),
    gluedNameIds: i32('gluedNameIds'),
    nameEntry: i32('nameEntry'),
    nameStart: i32('nameStart'),
    nameTokens: i32('nameTokens'),
  };
}

/**
 * The index of these lists: read from the cache folder when it holds one built by this code for these list
 * versions, else built and written there.
 */
export async function indexFor(
  lists: readonly ScreeningList[],
  { cacheDir, logger }: { cacheDir?: string; logger?: Logger } = {},
): Promise<NameIndex> {
  if (!cacheDir) return buildNameIndex(lists);
  const key = derivedKey(lists.flatMap((l) => [l.name, l.contentHash, String(l.entries.length)]));
  try {
    const file = await readDerived(cacheDir, 'index', key, 'bin');
    const index = file && restoreIndex(file, lists, key);
    if (index) return index;
  } catch (error) {
    logger?.warn({ err: error, cacheDir }, 'cached screening index unreadable; building it');
  }
  const index = buildNameIndex(lists);
  await writeDerived(cacheDir, 'index', key, 'bin', serialiseIndex(index, key)).catch((error: unknown) =>
    logger?.warn({ err: error, cacheDir }, 'screening index could not be cached'),
  );
  return index;
}
