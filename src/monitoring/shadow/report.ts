// A shadow's report from its read model: the window it covered, decisions it would change by pair, each rule's hits
// in both rulesets (in all and per hour), and the changed decisions a page at a time.
import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../../errors.js';
import { emptyRecord, ownSlot, recordOf } from '../../own-keys.js';
import type { ShadowTables } from './projection.js';

export interface ShadowReport {
  shadow: {
    shadowId: string;
    candidateVersion: string;
    files: Record<string, string>;
    status: 'running' | 'stopped';
    startedAt: string;
    until: string;
    maxDecisions: number;
    stoppedAt: string | null;
    stopReason: string | null;
  };
  /** When the first and last decisions it evaluated were made (null before the first). */
  window: { from: string | null; to: string | null };
  decisions: number;
  changed: number;
  unreproducible: number;
  /** `approved→review` → decisions. */
  transitions: Record<string, number>;
  ruleHits: Record<string, { deciding: number; candidate: number }>;
  hours: { hour: string; decisions: number; changed: number; hits: Record<string, { deciding: number; candidate: number }> }[];
  /** The decisions it would change, in log order, a page at a time (optionally of one pair). */
  changes: {
    page: number;
    limit: number;
    total: number;
    items: {
      transactionId: string;
      reference: string;
      customer: string | null;
      decidedAt: string;
      pair: string;
      decidingFired: string[];
      candidateFired: string[];
      candidateRiskScore: string;
    }[];
  };
}

const split = (s: string): string[] => (s === '' ? [] : s.split(','));

export async function shadowReport(
  db: Kysely<ShadowTables>,
  businessId: string,
  query: { shadowId?: string; pair?: string; page?: number; limit?: number },
): Promise<ShadowReport> {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  if (!Number.isInteger(page) || page < 1) throw new ValidationError('page must be a whole number of at least 1', 'page');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new ValidationError('limit must be a whole number from 1 to 100', 'limit');
  let runs = db.selectFrom('shadow_runs').selectAll().where('business_id', '=', businessId);
  if (query.shadowId !== undefined) runs = runs.where('shadow_id', '=', query.shadowId);
  const run = await runs.orderBy('started_at', 'desc').orderBy('shadow_id', 'desc').limit(1).executeTakeFirst();
  if (!run)
    throw new NotFoundError(
      query.shadowId === undefined ? 'No shadow ruleset ran for this business' : `Shadow ${query.shadowId} not found`,
    );
  const of = { business: businessId, shadow: run.shadow_id };
  // The tables share their key columns; untyped here, each read is typed by its table's row below.
  const where = (table: keyof ShadowTables) =>
    (db as Kysely<any>).selectFrom(table).where('business_id', '=', of.business).where('shadow_id', '=', of.shadow);
  const [hours, ruleHours, transitions] = await Promise.all([
    where('shadow_hours').selectAll().orderBy('hour').execute() as Promise<ShadowTables['shadow_hours'][]>,
    where('shadow_rule_hours').selectAll().execute() as Promise<ShadowTables['shadow_rule_hours'][]>,
    where('shadow_transitions').selectAll().execute() as Promise<ShadowTables['shadow_transitions'][]>,
  ]);
  let changes = where('shadow_changes');
  if (query.pair !== undefined) changes = changes.where('pair', '=', query.pair);
  const total = Number(((await changes.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirst()) as { n: number | string }).n);
  const items = (await changes
    .selectAll()
    .orderBy('position')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute()) as ShadowTables['shadow_changes'][];

  const ruleHits = emptyRecord<{ deciding: number; candidate: number }>();
  const byHour = new Map(
    hours.map((h) => [
      h.hour,
      {
        hour: h.hour,
        decisions: Number(h.decisions),
        changed: Number(h.changed),
        hits: emptyRecord<{ deciding: number; candidate: number }>(),
      },
    ]),
  );
  for (const r of [...ruleHours].sort((a, b) => (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0))) {
    const total = ownSlot(ruleHits, r.rule_id, () => ({ deciding: 0, candidate: 0 }));
    total.deciding += Number(r.deciding);
    total.candidate += Number(r.candidate);
    const hour = byHour.get(r.hour);
    if (hour) hour.hits[r.rule_id] = { deciding: Number(r.deciding), candidate: Number(r.candidate) };
  }
  return {
    shadow: {
      shadowId: run.shadow_id,
      candidateVersion: run.candidate_version,
      files: JSON.parse(run.files) as Record<string, string>,
      status: run.stopped_at === null ? 'running' : 'stopped',
      startedAt: run.started_at,
      until: run.until,
      maxDecisions: Number(run.max_decisions),
      stoppedAt: run.stopped_at,
      stopReason: run.stop_reason,
    },
    window: { from: run.first_decided_at, to: run.last_decided_at },
    decisions: Number(run.decisions),
    changed: Number(run.changed),
    unreproducible: Number(run.unreproducible),
    transitions: recordOf(transitions.map((t) => [t.pair, Number(t.decisions)] as const)),
    ruleHits,
    hours: [...byHour.values()],
    changes: {
      page,
      limit,
      total,
      items: items.map((c) => ({
        transactionId: c.transaction_id,
        reference: c.reference,
        customer: c.customer,
        decidedAt: c.decided_at,
        pair: c.pair,
        decidingFired: split(c.deciding_fired),
        candidateFired: split(c.candidate_fired),
        candidateRiskScore: c.candidate_risk_score,
      })),
    },
  };
}
