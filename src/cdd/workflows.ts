// Workflows are files (rules/workflows/*.json): which checks run on the customer and on each of its persons,
// how strict name matching is, and how often the customer is screened again (ongoing monitoring).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { WorkflowRef } from './types.js';

export const IDENTITY_CHECKS = ['bvn', 'nin', 'voters card', 'passport', 'drivers licence', 'tin'] as const;
export const SCREENING_CHECKS = ['pep', 'sanctions', 'adverse media'] as const;
export const CHECK_IDS = [...IDENTITY_CHECKS, 'cac', ...SCREENING_CHECKS] as const;
export type CheckId = (typeof CHECK_IDS)[number];
export type PersonCheckId = (typeof IDENTITY_CHECKS)[number] | (typeof SCREENING_CHECKS)[number];

const personChecks = z.array(z.enum([...IDENTITY_CHECKS, ...SCREENING_CHECKS])).default([]);

export const WorkflowSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be lower-case letters, digits and dashes'),
  name: z.string().min(1),
  customerType: z.enum(['individual', 'corporate']),
  checks: z.array(z.enum(CHECK_IDS)).min(1),
  directors: personChecks,
  signatories: personChecks,
  owners: personChecks,
  /** Minimum screening confidence (0–100) for a match. */
  threshold: z.number().int().min(1).max(100).default(85),
  /** Most matches kept per list type and subject. */
  limit: z.number().int().min(1).max(50).default(10),
  /** Days between automatic re-runs after a request; null or absent: no ongoing monitoring. */
  rescreenEveryDays: z.number().int().min(1).max(3660).nullish(),
});

export type WorkflowFile = z.infer<typeof WorkflowSchema>;
export interface Workflow extends WorkflowFile {
  _id: string;
}

/** What a request runs: copied into the request when it is created, so editing a file never changes a queued job. */
export type WorkflowPlan = Pick<Workflow, 'checks' | 'directors' | 'signatories' | 'owners' | 'threshold' | 'limit'>;

export const workflowRef = (w: Workflow): WorkflowRef => ({ _id: w._id, name: w.name, slug: w.slug });
export const workflowPlan = (w: Workflow): WorkflowPlan => ({
  checks: w.checks,
  directors: w.directors,
  signatories: w.signatories,
  owners: w.owners,
  threshold: w.threshold,
  limit: w.limit,
});

/** A stable id per slug, shaped like the other ids. */
const workflowId = (slug: string) => createHash('sha256').update(`workflow:${slug}`).digest('hex').slice(0, 24);

/** Reads every workflow file of `dir`; a bad file stops start-up with its name and the problem. */
export function loadWorkflows(dir: string): Map<string, Workflow> {
  const workflows = new Map<string, Workflow>();
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return workflows;
    throw e;
  }
  for (const name of names) {
    const path = join(dir, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new Error(`workflow ${path}: ${(e as Error).message}`);
    }
    const parsed = WorkflowSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`workflow ${path}: ${issue.path.join('.') || 'file'} ${issue.message}`);
    }
    if (workflows.has(parsed.data.slug)) throw new Error(`workflow ${path}: slug ${parsed.data.slug} is used twice`);
    workflows.set(parsed.data.slug, { ...parsed.data, _id: workflowId(parsed.data.slug) });
  }
  return workflows;
}
