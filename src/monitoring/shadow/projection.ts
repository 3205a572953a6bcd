// The shadows' read model: each run, its hits per hour and rule on both sides, its changed pairs and the decisions
// it would change. Inline: shadow events are appended off the instant path, a few a second at most.
import { type Kysely, sql } from 'kysely';
import { defineProjection } from '../../projections/index.js';
import type { StoredEvent } from '../../store/index.js';
import { SHADOW_EVENT_TYPES, type ShadowEvent } from './events.js';

export interface ShadowTables {
  shadow_runs: {
    business_id: string;
    shadow_id: string;
    candidate_version: string;
    /** The candidate's files as JSON. */
    files: string;
    started_at: string;
    until: string;
    max_decisions: number;
    stopped_at: string | null;
    stop_reason: string | null;
    decisions: number;
    changed: number;
    unreproducible: number;
    first_decided_at: string | null;
    last_decided_at: string | null;
    after_position: number;
    through_position: number;
  };
  shadow_hours: { business_id: string; shadow_id: string; hour: string; decisions: number; changed: number };
  shadow_rule_hours: { business_id: string; shadow_id: string; hour: string; rule_id: string; deciding: number; candidate: number };
  shadow_transitions: { business_id: string; shadow_id: string; pair: string; decisions: number };
  shadow_changes: {
    business_id: string;
    shadow_id: string;
    position: number;
    transaction_id: string;
    reference: string;
    customer: string | null;
    decided_at: string;
    pair: string;
    deciding_fired: string;
    candidate_fired: string;
    candidate_risk_score: string;
  };
}

type Data<T extends ShadowEvent['type']> = Extract<ShadowEvent, { type: T }>['data'];

export const shadowProjection = defineProjection<ShadowTables>({
  name: 'shadows',
  handles: SHADOW_EVENT_TYPES,
  tables: [
    { name: 'shadow_runs', key: ['business_id', 'shadow_id'] },
    { name: 'shadow_hours', key: ['business_id', 'shadow_id', 'hour'] },
    { name: 'shadow_rule_hours', key: ['business_id', 'shadow_id', 'hour', 'rule_id'] },
    { name: 'shadow_transitions', key: ['business_id', 'shadow_id', 'pair'] },
    { name: 'shadow_changes', key: ['business_id', 'shadow_id', 'position'] },
  ],
  async migrate(db: Kysely<any>) {
    const table = (name: string) =>
      db.schema
        .createTable(name)
        .ifNotExists()
        .addColumn('business_id', 'text', (c) => c.notNull())
        .addColumn('shadow_id', 'text', (c) => c.notNull());
    await table('shadow_runs')
      .addColumn('candidate_version', 'text', (c) => c.notNull())
      .addColumn('files', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('until', 'text', (c) => c.notNull())
      .addColumn('max_decisions', 'integer', (c) => c.notNull())
      .addColumn('stopped_at', 'text')
      .addColumn('stop_reason', 'text')
      .addColumn('decisions', 'integer', (c) => c.notNull())
      .addColumn('changed', 'integer', (c) => c.notNull())
      .addColumn('unreproducible', 'integer', (c) => c.notNull())
      .addColumn('first_decided_at', 'text')
      .addColumn('last_decided_at', 'text')
      .addColumn('after_position', 'integer', (c) => c.notNull())
      .addColumn('through_position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('shadow_runs_pk', ['business_id', 'shadow_id'])
      .execute();
    await table('shadow_hours')
      .addColumn('hour', 'text', (c) => c.notNull())
      .addColumn('decisions', 'integer', (c) => c.notNull())
      .addColumn('changed', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('shadow_hours_pk', ['business_id', 'shadow_id', 'hour'])
      .execute();
    await table('shadow_rule_hours')
      .addColumn('hour', 'text', (c) => c.notNull())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('deciding', 'integer', (c) => c.notNull())
      .addColumn('candidate', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('shadow_rule_hours_pk', ['business_id', 'shadow_id', 'hour', 'rule_id'])
      .execute();
    await table('shadow_transitions')
      .addColumn('pair', 'text', (c) => c.notNull())
      .addColumn('decisions', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('shadow_transitions_pk', ['business_id', 'shadow_id', 'pair'])
      .execute();
    await table('shadow_changes')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('transaction_id', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('customer', 'text')
      .addColumn('decided_at', 'text', (c) => c.notNull())
      .addColumn('pair', 'text', (c) => c.notNull())
      .addColumn('deciding_fired', 'text', (c) => c.notNull())
      .addColumn('candidate_fired', 'text', (c) => c.notNull())
      .addColumn('candidate_risk_score', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('shadow_changes_pk', ['business_id', 'shadow_id', 'position'])
      .execute();
  },
  apply: (db, event) => applyShadowEvent(db, event),
});

async function applyShadowEvent(db: Kysely<ShadowTables>, event: StoredEvent): Promise<void> {
  const business_id = event.metadata.businessId;
  switch (event.type as ShadowEvent['type']) {
    case 'ShadowStarted': {
      const d = event.data as Data<'ShadowStarted'>;
      await db
        .insertInto('shadow_runs')
        .values({
          business_id,
          shadow_id: d.shadowId,
          candidate_version: d.candidateVersion,
          files: JSON.stringify(d.files),
          started_at: d.startedAt,
          until: d.until,
          max_decisions: d.maxDecisions,
          stopped_at: null,
          stop_reason: null,
          decisions: 0,
          changed: 0,
          unreproducible: 0,
          first_decided_at: null,
          last_decided_at: null,
          after_position: d.afterPosition,
          through_position: d.afterPosition,
        })
        .execute();
      return;
    }
    case 'ShadowWindowRecorded': {
      const d = event.data as Data<'ShadowWindowRecorded'>;
      const shadow_id = d.shadowId;
      const decisions = d.hours.reduce((n, h) => n + h.decisions, 0);
      const changed = d.hours.reduce((n, h) => n + h.changed, 0);
      await db
        .updateTable('shadow_runs')
        .set({
          decisions: sql`decisions + ${decisions}`,
          changed: sql`changed + ${changed}`,
          unreproducible: sql`unreproducible + ${d.unreproducible}`,
          first_decided_at: sql`coalesce(first_decided_at, ${d.firstDecidedAt})`,
          last_decided_at: d.lastDecidedAt,
          through_position: d.throughPosition,
        })
        .where('business_id', '=', business_id)
        .where('shadow_id', '=', shadow_id)
        .execute();
      for (const h of d.hours) {
        await db
          .insertInto('shadow_hours')
          .values({ business_id, shadow_id, hour: h.hour, decisions: h.decisions, changed: h.changed })
          .onConflict((oc) =>
            oc.columns(['business_id', 'shadow_id', 'hour']).doUpdateSet({
              decisions: sql`shadow_hours.decisions + ${h.decisions}`,
              changed: sql`shadow_hours.changed + ${h.changed}`,
            }),
          )
          .execute();
        for (const [rule_id, [deciding, candidate]] of Object.entries(h.hits)) {
          await db
            .insertInto('shadow_rule_hours')
            .values({ business_id, shadow_id, hour: h.hour, rule_id, deciding, candidate })
            .onConflict((oc) =>
              oc.columns(['business_id', 'shadow_id', 'hour', 'rule_id']).doUpdateSet({
                deciding: sql`shadow_rule_hours.deciding + ${deciding}`,
                candidate: sql`shadow_rule_hours.candidate + ${candidate}`,
              }),
            )
            .execute();
        }
      }
      for (const [pair, n] of Object.entries(d.transitions)) {
        await db
          .insertInto('shadow_transitions')
          .values({ business_id, shadow_id, pair, decisions: n })
          .onConflict((oc) =>
            oc.columns(['business_id', 'shadow_id', 'pair']).doUpdateSet({ decisions: sql`shadow_transitions.decisions + ${n}` }),
          )
          .execute();
      }
      return;
    }
    case 'ShadowDecisionsChanged': {
      const d = event.data as Data<'ShadowDecisionsChanged'>;
      if (d.changes.length === 0) return;
      await db
        .insertInto('shadow_changes')
        .values(
          d.changes.map((c) => ({
            business_id,
            shadow_id: d.shadowId,
            position: c.position,
            transaction_id: c.transactionId,
            reference: c.reference,
            customer: c.customer,
            decided_at: c.decidedAt,
            pair: `${c.from}→${c.to}`,
            deciding_fired: c.decidingFired.join(','),
            candidate_fired: c.candidateFired.join(','),
            candidate_risk_score: c.candidateRiskScore,
          })),
        )
        .execute();
      return;
    }
    case 'ShadowStopped': {
      const d = event.data as Data<'ShadowStopped'>;
      await db
        .updateTable('shadow_runs')
        .set({ stopped_at: d.stoppedAt, stop_reason: d.reason })
        .where('business_id', '=', business_id)
        .where('shadow_id', '=', d.shadowId)
        .execute();
      return;
    }
  }
}
