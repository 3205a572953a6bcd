/**
 * News articles for the adverse-media index, from CSV (header: link|url, title, origin?, published_at|date,
 * text|body|snippet) or JSON lines with the same keys. `origin` defaults to the link's host.
 */
import { z } from 'zod';
import { parseCsvObjects } from '../sources/common.js';

export interface Article {
  link: string;
  title: string;
  origin: string;
  publishedAt: string | null;
  body: string;
  /** Licence / credit line to show with excerpts (e.g. CC BY 2.5 for Wikinews). */
  attribution: string | null;
}

const articleSchema = z
  .object({
    link: z.string().optional(),
    url: z.string().optional(),
    title: z.string().min(1),
    origin: z.string().optional(),
    published_at: z.string().optional(),
    publishedAt: z.string().optional(),
    date: z.string().optional(),
    text: z.string().optional(),
    body: z.string().optional(),
    snippet: z.string().optional(),
    attribution: z.string().optional(),
  })
  .transform((a, ctx) => {
    // Wikinews URLs carry a doubled slash ("org//wiki"); one spelling per article keeps links unique.
    const link = (a.link ?? a.url ?? '').trim().replace(/([^:/])\/\/+/g, '$1/');
    if (!link) {
      ctx.addIssue({ code: 'custom', message: 'link (or url) is required' });
      return z.NEVER;
    }
    const body = a.text ?? a.body ?? a.snippet ?? '';
    const origin = a.origin || (URL.canParse(link) ? new URL(link).hostname : 'unknown');
    return {
      link,
      title: a.title,
      origin,
      publishedAt: a.published_at || a.publishedAt || a.date || null,
      body,
      attribution: a.attribution || null,
    } satisfies Article;
  });

function parseRow(row: unknown, where: string): Article {
  const parsed = articleSchema.safeParse(row);
  if (!parsed.success) throw new Error(`${where}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

export function parseArticlesCsv(text: string, defaults: { attribution?: string } = {}): Article[] {
  return parseCsvObjects(text).map((row, i) => parseRow({ attribution: defaults.attribution, ...row }, `row ${i + 2}`));
}

export function parseArticlesJsonl(text: string, defaults: { attribution?: string } = {}): Article[] {
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i] as const)
    .filter(([line]) => line)
    .map(([line, i]) => parseRow({ attribution: defaults.attribution, ...JSON.parse(line) }, `line ${i + 1}`));
}
