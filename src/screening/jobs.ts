import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Matcher } from '../name-matching/matcher.js';
import { ExpectedVersionConflictError, type EventStore, type StreamWrite } from '../store/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { checkStream, type AmlEvent, type CheckKind, type CheckQuery, type ListVersion } from './events.js';
import { adverseMediaPayload, combinedPayload, sanctionPayload, type CheckFacts } from './payloads.js';
import type { AmlTables, ScreeningChecksTable } from './projection.js';
import type { ArticleSearch } from './adverse-media.js';

const WORKER = 'screening-worker';
const BATCH = 50;
export const DEFAULT_THRESHOLD = 85;
export const DEFAULT_LIMIT = 10;

const EVENT_TYPES: Record<Exclude<CheckKind, 'screen'>, string> = {
  'risk-monitoring': 'screening.risk-monitoring.completed',
  'adverse-media': 'screening.adverse-media.completed',
  sanction: 'screening.sanction.completed',
};

/** What a finished check computed: the payload the client receives and the list versions it matched against. */
export function computeResult(
  matcher: Matcher,
  searchArticles: ArticleSearch,
  kind: CheckKind,
  q: CheckQuery,
  facts: CheckFacts,
): { result: unknown; listVersions: ListVersion[] } {
  const threshold = q.threshold ?? DEFAULT_THRESHOLD;
  const limit = q.limit ?? DEFAULT_LIMIT;
  const attributes = { country: q.country, birthDate: q.birthDate, gender: q.gender };
  const versions = (types: readonly ListVersion['type'][]) =>
    matcher.lists
      .filter((l) => types.includes(l.type) && (!q.lists || q.lists.includes(l.name)))
      .map((l) => ({ name: l.name, type: l.type, version: l.version }));
  switch (kind) {
    case 'screen': {
      const { pep, sanction } = matcher.screen({ name: q.text, threshold, limit, lists: q.lists, ...attributes });
      return { result: { pep, sanction }, listVersions: versions(['pep', 'sanction']) };
    }
    case 'risk-monitoring': {
      const { pep, sanction } = matcher.screen({ name: q.text, threshold, limit, ...attributes });
      return {
        result: combinedPayload(facts, pep, sanction, searchArticles(q.text, limit), limit),
        listVersions: versions(['pep', 'sanction']),
      };
    }
    case 'adverse-media':
      return { result: adverseMediaPayload(facts, searchArticles(q.text, limit), limit), listVersions: [] };
    case 'sanction': {
      const { sanction } = matcher.screen({ name: q.text, threshold, limit, types: ['sanction'], ...attributes });
      return { result: sanctionPayload(facts, sanction, q.country), listVersions: versions(['sanction']) };
    }
  }
}

/** The claim a node holds while it runs a check: no other node runs it meanwhile. */
export const checkClaim = (checkId: string): string => `screening-check:${checkId}`;

/**
 * Runs requested checks. The request event is the job: a check still pending after a crash is run on the next
 * start. A node runs a check under its claim (`checkClaim`), after reading from the log that no node has finished
 * it, so across nodes each check is computed once. The result is appended at stream version 1 (right after the
 * request), together with its webhook delivery, in one transaction: should two runs ever overlap (a node that lost
 * its claims' connection), the second append fails, so no check completes or is delivered twice.
 */
export class CheckRunner {
  constructor(
    private readonly db: Kysely<AmlTables>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly webhooks: WebhookService,
    private readonly matcher: () => Promise<Matcher>,
    private readonly articles: () => Promise<ArticleSearch>,
  ) {}

  async runPending(): Promise<number> {
    let done = 0;
    for (;;) {
      const pending = await this.db
        .selectFrom('screening_checks')
        .selectAll()
        .where('status', '=', 'pending')
        .orderBy('created_at')
        .limit(BATCH)
        .execute();
      if (pending.length === 0) return done;
      const matcher = await this.matcher();
      const searchArticles = await this.articles();
      let ran = 0;
      for (const check of pending) {
        const claimed = await this.store.exclusive(checkClaim(check.check_id), () => this.#run(matcher, searchArticles, check));
        if (claimed?.value) ran++;
      }
      done += ran;
      if (ran === 0 || pending.length < BATCH) return done;
    }
  }

  async #run(matcher: Matcher, searchArticles: ArticleSearch, check: ScreeningChecksTable): Promise<boolean> {
    // This node's read model may lag behind another node that finished the check and let go of its claim.
    if ((await this.store.streamVersion(checkStream(check.check_id))) > 1) return false;
    try {
      const completedAt = this.clock.now().toISOString();
      const query = JSON.parse(check.query) as CheckQuery;
      const facts: CheckFacts = {
        checkId: check.check_id,
        query: query.text,
        requestedAt: check.created_at,
        completedAt,
        requestedBy: check.requested_by,
      };
      let event: AmlEvent;
      const writes: StreamWrite[] = [];
      try {
        const { result, listVersions } = computeResult(matcher, searchArticles, check.kind, query, facts);
        let deliveryId: string | null = null;
        if (check.destination_url && check.kind !== 'screen') {
          const delivery = this.webhooks.deliveryWrite({
            url: check.destination_url,
            eventType: EVENT_TYPES[check.kind],
            subject: check.check_id,
            payload: result,
          });
          deliveryId = delivery.deliveryId;
          writes.push(delivery.write);
        }
        event = { type: 'ScreeningCheckCompleted', data: { checkId: check.check_id, result, listVersions, deliveryId, completedAt } };
      } catch (error) {
        this.logger.error({ err: error, checkId: check.check_id }, 'screening check failed');
        event = {
          type: 'ScreeningCheckFailed',
          data: { checkId: check.check_id, error: error instanceof Error ? error.message : String(error), failedAt: completedAt },
        };
      }
      writes.unshift({ streamId: checkStream(check.check_id), events: [event], expectedVersion: 1 });
      await this.store.appendMany(writes, { businessId: check.business_id, actor: WORKER });
      return true;
    } catch (error) {
      if (error instanceof ExpectedVersionConflictError) return false;
      throw error;
    }
  }
}
