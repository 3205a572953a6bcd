/**
 * Adverse-media search: FTS5 finds articles naming the subject, then each article is read for
 * financial-crime context around the mentions. Scores are fractions 0–1, as in the spec's webhook.
 */
import type Database from 'better-sqlite3';
import { foldText } from '../fold.js';
import { nameTables } from '../name-tables.js';
import { adverseContext, type AdverseInformation } from './context.js';
import { findArticles } from './store.js';

export interface AdverseMediaResult {
  title: string;
  link: string;
  origin: string;
  snippet: string;
  publishedAt: string | null;
  attribution: string | null;
  /** How surely the article names the subject: 1 for the name as written, 0.8 for its words reordered nearby. */
  keyword: { confidenceScore: number };
  adverseInformation: AdverseInformation[];
  /** Best adverse score × name confidence; results are ordered by it. */
  score: number;
}

export interface AdverseMediaOptions {
  limit?: number;
  /** Articles scoring below this are not adverse (default 0.5). */
  minScore?: number;
}

const SNIPPET_CHARS = 320;
/** FTS candidates read per requested result: most articles naming someone are not adverse. */
const CANDIDATES_PER_RESULT = 5;

/**
 * The most words of a query that are searched: FTS5's NEAR costs about the square of its phrases, and a query of
 * 200,000 words held the event loop for minutes (and again at every restart, while the stored check was retried).
 * A person's or a company's name is a few words; the rest of a longer query is left out.
 */
const MAX_QUERY_WORDS = 12;

function queryWords(query: string): string[] {
  const { honorifics, leadingTitles } = nameTables();
  return foldText(query)
    .split(' ')
    .filter((w) => w.length > 1 && !honorifics.has(w) && !leadingTitles.has(w))
    .slice(0, MAX_QUERY_WORDS);
}

/** Word positions where the name is mentioned, and the best mention confidence. */
function findMentions(words: readonly string[], name: readonly string[]): { positions: number[]; confidence: number } {
  const wanted = new Set(name);
  const surname = name[name.length - 1]!;
  const positions: number[] = [];
  let confidence = 0;
  for (let i = 0; i < words.length; i++) {
    if (!wanted.has(words[i]!)) continue;
    const span = words.slice(i, i + name.length + 2);
    if (name.every((w) => span.includes(w))) {
      positions.push(i);
      confidence = Math.max(confidence, name.every((w, k) => words[i + k] === w) ? 1 : 0.8);
    } else if (confidence > 0 && words[i] === surname) {
      // After a full mention, articles refer to people by surname.
      positions.push(i);
    }
  }
  return { positions, confidence };
}

function snippet(body: string, name: readonly string[], adverse: readonly AdverseInformation[]): string {
  const sentences = body.replace(/\s+/g, ' ').split(/(?<=[.!?])\s+/);
  const surname = name[name.length - 1]!;
  const mentions = (s: string): boolean => foldText(s).split(' ').includes(surname);
  const stems = adverse.map((a) => a.keyword.split(' ')[0]!.slice(0, 5));
  const best =
    sentences.find((s) => mentions(s) && stems.some((k) => foldText(s).includes(k))) ?? sentences.find(mentions) ?? sentences[0] ?? '';
  return best.length > SNIPPET_CHARS ? `${best.slice(0, SNIPPET_CHARS - 1)}…` : best;
}

export function searchAdverseMedia(db: Database.Database, query: string, options: AdverseMediaOptions = {}): AdverseMediaResult[] {
  const limit = options.limit ?? 10;
  const minScore = options.minScore ?? 0.5;
  const name = queryWords(query);
  if (!name.length) return [];
  const results: AdverseMediaResult[] = [];
  for (const article of findArticles(db, name, limit * CANDIDATES_PER_RESULT)) {
    const words = foldText(`${article.title}. ${article.body}`).split(' ');
    const { positions, confidence } = findMentions(words, name);
    if (!positions.length) continue;
    const adverseInformation = adverseContext(words, positions);
    const score = Math.round((adverseInformation[0]?.score ?? 0) * confidence * 100) / 100;
    if (score < minScore) continue;
    results.push({
      title: article.title,
      link: article.link,
      origin: article.origin,
      snippet: snippet(article.body, name, adverseInformation),
      publishedAt: article.publishedAt,
      attribution: article.attribution,
      keyword: { confidenceScore: confidence },
      adverseInformation,
      score,
    });
  }
  return results.sort((a, b) => b.score - a.score).slice(0, limit);
}
