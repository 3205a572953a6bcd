import type { AdverseMediaResult } from '../name-matching/adverse-media/search.js';
import type { ScreeningRecord } from '../name-matching/records.js';

/** The spec's item shape plus origin, snippet, date and the licence line the article's source requires. */
export type AdverseMediaItem = Omit<AdverseMediaResult, 'score'>;

export interface AdverseMediaSection {
  info: { id: string; query: string; count: number; limit: number };
  result: AdverseMediaItem[];
}

export interface ListSection {
  check_id: string;
  check_creation_date: string;
  last_screened_date: string;
  created_by: string;
  results: ScreeningRecord[];
  search_keyword: string;
  type: 'pep' | 'sanction';
}

interface CheckFacts {
  checkId: string;
  query: string;
  requestedAt: string;
  completedAt: string;
  requestedBy: string;
}

export const adverseItem = (r: AdverseMediaResult): AdverseMediaItem => ({
  title: r.title,
  link: r.link,
  origin: r.origin,
  snippet: r.snippet,
  publishedAt: r.publishedAt,
  attribution: r.attribution,
  keyword: r.keyword,
  adverseInformation: r.adverseInformation.map((a) => ({ keyword: a.keyword, score: a.score })),
});

export function adverseSection(facts: CheckFacts, results: readonly AdverseMediaResult[], limit: number): AdverseMediaSection {
  return { info: { id: facts.checkId, query: facts.query, count: results.length, limit }, result: results.map(adverseItem) };
}

export function listSection(facts: CheckFacts, type: 'pep' | 'sanction', results: ScreeningRecord[]): ListSection {
  return {
    check_id: facts.checkId,
    check_creation_date: facts.requestedAt,
    last_screened_date: facts.completedAt,
    created_by: facts.requestedBy,
    results,
    search_keyword: facts.query,
    type,
  };
}

/** Combined screening result (POST /aml/risk-monitoring). */
export const combinedPayload = (
  facts: CheckFacts,
  pep: ScreeningRecord[],
  sanction: ScreeningRecord[],
  media: readonly AdverseMediaResult[],
  limit: number,
) => ({
  checkId: facts.checkId,
  adverseMedia: adverseSection(facts, media, limit),
  pep: listSection(facts, 'pep', pep),
  sanction: listSection(facts, 'sanction', sanction),
});

/** Adverse-media result (POST /adverse-media). */
export const adverseMediaPayload = (facts: CheckFacts, media: readonly AdverseMediaResult[], limit: number) => ({
  ...adverseSection(facts, media, limit),
  type: 'adverse media' as const,
});

/** Sanction result (POST /aml/sanction): the spec shows none, so it is the combined payload's sanction section. */
export const sanctionPayload = (facts: CheckFacts, sanction: ScreeningRecord[], country: string | undefined) => ({
  ...listSection(facts, 'sanction', sanction),
  country: country ?? null,
});

export type { CheckFacts };
