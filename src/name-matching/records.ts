/**
 * Screening record shapes. `ScreeningRecord` follows the spec's PEP/sanction record
 * (compliance-service-interface.md, "Screening records"), plus the list bookkeeping
 * (`addresses`, `listName`, `listVersion`) that every match must carry.
 */

export type ListType = 'pep' | 'sanction';

export type EntityType = 'Person' | 'Organization' | 'Vessel' | 'Aircraft' | 'Unknown';

export interface DatedTitle {
  title: string;
  startDate: string | null;
  endDate: string | null;
  _id: string;
}

export interface DatasetRef {
  name: string;
  url: string;
}

/** A list entry as stored: everything except the per-query scores. */
export interface ListEntry {
  _id: string;
  externalId: string;
  type: ListType;
  name: string;
  aliases: string[];
  /** Full date, year, or several of them joined by ';' (spec: "full date or year or several years"). */
  birth_date: string | null;
  /** ISO 3166-1 alpha-2, lower case. */
  countries: string[];
  entityType: EntityType;
  gender: 'male' | 'female' | null;
  photo: string | null;
  deceased: boolean;
  politicalParty: string[];
  positions: DatedTitle[];
  education: DatedTitle[];
  dataset: DatasetRef[];
  sanctions: string[];
  overview: string;
  lastUpdated: string | null;
  firstSeen: string | null;
  addresses: string[];
  listName: string;
  listVersion: string;
  /**
   * The aliases (also in `aliases`) the source marks as weak, such as the UN's "Low" quality aliases: matched,
   * at a lower score. Absent from lists imported before the field existed.
   */
  weakAliases?: string[];
  /**
   * For a relative or close associate of a PEP: the PEP and how they are related (spouse, child…). A relative with
   * no office of their own has no positions; the overview names the PEP's offices.
   */
  relatedTo?: { _id: string; name: string; relationship: string }[];
}

/** One list's entry behind a screening result: a subject on several lists has one per list. */
export interface SourceEntry {
  listName: string;
  listVersion: string;
  _id: string;
  externalId: string;
  name: string;
  sanctions: string[];
  dataset: DatasetRef[];
  firstSeen: string | null;
  lastUpdated: string | null;
}

/**
 * A list entry returned by a screening query. When the subject is on several lists, the fields are those of its
 * best-scoring entry merged with the others' (aliases, programmes, countries, dates, datasets), and `sources` holds
 * every list's own entry.
 */
export interface ScreeningRecord extends ListEntry {
  sources: SourceEntry[];
  /** Name similarity alone, 0–100 (one decimal). */
  searchScore: number;
  /** Integer 0–100: the name score adjusted by date of birth, country and gender. Thresholds apply to this. */
  confidenceScore: number;
  /** When a reviewer confirmed it as the subject: always null in a search's result (the CDD read shape sets it). */
  confirmedAt: null;
}

/** A parsed list, ready to index; produced by every source parser. */
export interface ScreeningList {
  name: string;
  type: ListType;
  /** Identifies this exact content: the first 12 hex digits of `contentHash`. */
  version: string;
  /** SHA-256 (hex) of the source bytes; an unchanged re-import has the same hash. */
  contentHash: string;
  /** Publication date declared by the source, when it declares one. */
  publishedAt: string | null;
  entries: ListEntry[];
}

/** Every field defaulted, so parsers only spell out what their source knows. */
export function blankEntry(
  fields: Pick<ListEntry, '_id' | 'externalId' | 'type' | 'name' | 'listName' | 'listVersion'> & Partial<ListEntry>,
): ListEntry {
  return {
    aliases: [],
    birth_date: null,
    countries: [],
    entityType: 'Unknown',
    gender: null,
    photo: null,
    deceased: false,
    politicalParty: [],
    positions: [],
    education: [],
    dataset: [],
    sanctions: [],
    overview: '',
    lastUpdated: null,
    firstSeen: null,
    addresses: [],
    ...fields,
  };
}
