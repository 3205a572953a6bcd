import type { ListType } from '../name-matching/records.js';

/** The asynchronous screening operations, and `screen` for the synchronous one (recorded all the same). */
export type CheckKind = 'risk-monitoring' | 'adverse-media' | 'sanction' | 'screen';
export type CheckStatus = 'pending' | 'completed' | 'failed';

export interface CheckQuery {
  /** The name screened, or the adverse-media free text. */
  text: string;
  threshold?: number;
  limit?: number;
  country?: string;
  birthDate?: string;
  gender?: string;
  lists?: string[];
}

/** Where the result goes: the request's callbackUrl, the business's default webhook, or nowhere (poll only). */
export interface CheckDestination {
  url: string;
  source: 'callback' | 'default';
}

export interface ListVersion {
  name: string;
  type: ListType;
  version: string;
}

export type ListFormat = 'ofac-csv' | 'un-xml' | 'ofsi-xlsx' | 'ftm-json' | 'csv' | 'everypolitician' | 'wikidata-pep';

export interface ListImportedData {
  list: string;
  type: ListType;
  format: ListFormat | 'embedded';
  version: string;
  contentHash: string;
  records: number;
  publishedAt: string | null;
  /** The parsed records, relative to the data directory; null for the lists bundled with the code. */
  file: string | null;
  importedAt: string;
}

export interface ArticlesImportedData {
  format: 'csv' | 'jsonl';
  /** Where the imported copy lives, relative to DATA_DIR. */
  file: string;
  articles: number;
  contentHash: string;
  importedAt: string;
}

export type AmlEvent =
  | {
      type: 'ScreeningCheckRequested';
      data: {
        checkId: string;
        kind: CheckKind;
        query: CheckQuery;
        destination: CheckDestination | null;
        requestedBy: string;
        requestedAt: string;
      };
    }
  | {
      type: 'ScreeningCheckCompleted';
      data: { checkId: string; result: unknown; listVersions: ListVersion[]; deliveryId: string | null; completedAt: string };
    }
  | { type: 'ScreeningCheckFailed'; data: { checkId: string; error: string; failedAt: string } }
  | { type: 'ScreeningListImported'; data: ListImportedData }
  | { type: 'AdverseMediaArticlesImported'; data: ArticlesImportedData };

export const checkStream = (checkId: string) => `screening-check-${checkId}`;
export const listStream = (list: string) => `screening-list-${list}`;
/** One stream for every article import, so that two imports of the same file cannot both be recorded. */
export const ARTICLE_IMPORTS_STREAM = 'adverse-media-imports';
