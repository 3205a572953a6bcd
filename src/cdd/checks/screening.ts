// PEP, sanctions and adverse-media checks: the subject's name through the screening engine. Matches are kept
// on the request for a reviewer; the check result says whether there is anything to review.
import type { CheckId, WorkflowPlan } from '../workflows.js';
import type { ScreeningPort } from '../ports.js';
import type { Check, RequestMatches } from '../types.js';
import { CheckBuilder } from './result.js';
import type { SubjectFacts } from './subjects.js';

export interface ScreeningOutcome {
  check: Check;
  matches: Partial<RequestMatches>;
}

const RESULT_NAMES = { pep: 'pepCheck', sanctions: 'sanctionsCheck', 'adverse media': 'adverseMediaCheck' } as const;

const note = (count: number, what: string) =>
  count === 0 ? `No ${what} match found` : `${count} potential ${what} match${count === 1 ? '' : 'es'}, awaiting confirmation`;

export async function screeningCheck(
  port: ScreeningPort,
  checkId: Extract<CheckId, 'pep' | 'sanctions' | 'adverse media'>,
  facts: SubjectFacts,
  plan: Pick<WorkflowPlan, 'threshold' | 'limit'>,
  now: () => Date,
  newId: () => string,
): Promise<ScreeningOutcome> {
  const start = now().toISOString();
  const b = new CheckBuilder(checkId, now);
  const name = facts.subject.name;
  const resultName = RESULT_NAMES[checkId];
  if (!name) {
    b.add(resultName, false, 'No name to screen', null, null, start);
    return { check: b.build(), matches: checkId === 'adverse media' ? { adverseMedia: [] } : {} };
  }
  if (checkId === 'adverse media') {
    const articles = await port.adverseMedia(name, plan.limit);
    const hits = articles.length
      ? [
          {
            _id: newId(),
            query: name,
            completedAt: now().toISOString(),
            matches: articles.map((a) => ({ _id: newId(), title: a.title, link: a.link, origin: a.origin, snippet: a.snippet })),
            subject: facts.subject,
          },
        ]
      : [];
    b.add(resultName, articles.length === 0, note(articles.length, 'adverse media'), name, articles[0]?.title, start);
    return { check: b.build(), matches: { adverseMedia: hits } };
  }
  const found = await port.screen({
    name,
    threshold: plan.threshold,
    limit: plan.limit,
    country: facts.country,
    birthDate: facts.dob?.slice(0, 10),
    gender: facts.gender,
  });
  const records = (checkId === 'pep' ? found.pep : found.sanction).map((r) => ({ ...r, subject: facts.subject }));
  b.add(resultName, records.length === 0, note(records.length, checkId === 'pep' ? 'PEP' : 'sanctions'), name, records[0]?.name, start);
  return { check: b.build(), matches: checkId === 'pep' ? { pep: records } : { sanctions: records } };
}
