// Each rule's performance as a read model of the log: its hits and alerts by day, the cases its alerts joined,
// how those cases were closed and whether they became STRs. Built from four domains' events (decisions, case
// alerts and closures, STR reports) without reading their tables. Deferred: the instant path appends a decision
// and its alert in one transaction, and counting them is no reason to make it wait.
import { type Kysely, sql } from 'kysely';
import { type CaseEvent, dispositionOf } from '../../cases/events.js';
import { defineProjection } from '../../projections/index.js';
import type { ReportEvent } from '../../reports/events.js';
import { ROWS_PER_STATEMENT, type StoredEvent } from '../../store/index.js';
import type { TransactionDecidedData } from '../events.js';

export interface RuleDaysTable {
  business_id: string;
  rule_id: string;
  /** UTC day (YYYY-MM-DD) of the decision. */
  day: string;
  hits: number;
  alerts: number;
}

/** A rule credited with a case: one of the case's alerts had it among its fired rules. */
export interface RuleCasesTable {
  business_id: string;
  case_id: string;
  rule_id: string;
  /** UTC day of the decision of the first of the rule's alerts to join the case: the period the case counts in. */
  day: string;
}

export interface PerformanceCasesTable {
  business_id: string;
  case_id: string;
  opened_at: string;
  closed_at: string | null;
  disposition: string | null;
  /** When an STR of the case was submitted to the FIU (the first one). */
  str_at: string | null;
}

export interface PerformanceReportsTable {
  business_id: string;
  report_id: string;
  case_id: string;
}

export interface RulePerformanceTables {
  rule_performance_days: RuleDaysTable;
  rule_performance_cases: RuleCasesTable;
  rule_performance_case_outcomes: PerformanceCasesTable;
  rule_performance_strs: PerformanceReportsTable;
}

const HANDLES = ['TransactionDecided', 'CaseOpened', 'CaseAlertAdded', 'CaseDispositionSet', 'ReportDrafted', 'ReportSubmitted'] as const;

type Counts = { hits: number; alerts: number };

export const rulePerformanceProjection = defineProjection<RulePerformanceTables>({
  name: 'rule-performance',
  handles: HANDLES,
  tables: [
    { name: 'rule_performance_days', key: ['business_id', 'rule_id', 'day'] },
    { name: 'rule_performance_cases', key: ['business_id', 'case_id', 'rule_id'] },
    { name: 'rule_performance_case_outcomes', key: ['business_id', 'case_id'] },
    { name: 'rule_performance_strs', key: ['business_id', 'report_id'] },
  ],
  deferred: true,
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('rule_performance_days')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('hits', 'integer', (c) => c.notNull())
      .addColumn('alerts', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('rule_performance_days_pk', ['business_id', 'rule_id', 'day'])
      .execute();
    await db.schema
      .createTable('rule_performance_cases')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('rule_performance_cases_pk', ['business_id', 'case_id', 'rule_id'])
      .execute();
    await db.schema
      .createIndex('rule_performance_cases_day')
      .ifNotExists()
      .on('rule_performance_cases')
      .columns(['business_id', 'day'])
      .execute();
    await db.schema
      .createTable('rule_performance_case_outcomes')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull())
      .addColumn('opened_at', 'text', (c) => c.notNull())
      .addColumn('closed_at', 'text')
      .addColumn('disposition', 'text')
      .addColumn('str_at', 'text')
      .addPrimaryKeyConstraint('rule_performance_case_outcomes_pk', ['business_id', 'case_id'])
      .execute();
    await db.schema
      .createTable('rule_performance_strs')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('report_id', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('rule_performance_strs_pk', ['business_id', 'report_id'])
      .execute();
  },
  apply: (db, event) => applyEvents(db, [event]),
  applyMany: applyEvents,
});

const dayOf = (iso: string): string => iso.slice(0, 10);

/**
 * A pass's events in log order. Day counts add up in memory and are written once per (rule, day) at the end: a
 * pass holds hundreds of decisions, and adding is the same whatever the batches a replay cuts the log into. The
 * rules credited with cases, and the cases opened, wait for one insert each (the first credit of a rule to a case
 * stands, in the pass as in the table); the openings are written before a closure or an STR updates them.
 */
async function applyEvents(db: Kysely<RulePerformanceTables>, events: readonly StoredEvent[]): Promise<void> {
  const counts = new Map<string, Counts & { business: string; rule: string; day: string }>();
  const count = (business: string, rule: string, day: string): Counts => {
    const key = `${business}\u0000${rule}\u0000${day}`;
    let c = counts.get(key);
    if (!c) counts.set(key, (c = { business, rule, day, hits: 0, alerts: 0 }));
    return c;
  };
  const credited = new Map<string, RuleCasesTable>();
  let opened: PerformanceCasesTable[] = [];
  const writeOpened = async () => {
    for (let i = 0; i < opened.length; i += ROWS_PER_STATEMENT)
      await db
        .insertInto('rule_performance_case_outcomes')
        .values(opened.slice(i, i + ROWS_PER_STATEMENT))
        .onConflict((oc) => oc.columns(['business_id', 'case_id']).doNothing())
        .execute();
    opened = [];
  };
  for (const event of events) {
    const business = event.metadata.businessId;
    if (event.type === 'TransactionDecided') {
      const data = event.data as TransactionDecidedData;
      for (const fired of data.decision.ruleResult ?? []) count(business, fired.id, dayOf(data.decidedAt)).hits++;
      continue;
    }
    if (event.type === 'CaseAlertAdded') {
      const { caseId, alert } = event.data as Extract<CaseEvent, { type: 'CaseAlertAdded' }>['data'];
      const day = dayOf(alert.decidedAt);
      for (const rule_id of alert.rules) {
        count(business, rule_id, day).alerts++;
        const key = `${business}\u0000${caseId}\u0000${rule_id}`;
        if (!credited.has(key)) credited.set(key, { business_id: business, case_id: caseId, rule_id, day });
      }
      continue;
    }
    if (event.type === 'CaseOpened') {
      const { caseId } = event.data as Extract<CaseEvent, { type: 'CaseOpened' }>['data'];
      opened.push({
        business_id: business,
        case_id: caseId,
        opened_at: event.recordedAt,
        closed_at: null,
        disposition: null,
        str_at: null,
      });
      continue;
    }
    await writeOpened();
    await applyOutcome(db, event, business);
  }
  await writeOpened();
  const rows = [...credited.values()];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
    await db
      .insertInto('rule_performance_cases')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) => oc.columns(['business_id', 'case_id', 'rule_id']).doNothing())
      .execute();
  for (const c of counts.values()) {
    await db
      .insertInto('rule_performance_days')
      .values({ business_id: c.business, rule_id: c.rule, day: c.day, hits: c.hits, alerts: c.alerts })
      .onConflict((oc) =>
        oc.columns(['business_id', 'rule_id', 'day']).doUpdateSet({
          hits: sql`rule_performance_days.hits + ${c.hits}`,
          alerts: sql`rule_performance_days.alerts + ${c.alerts}`,
        }),
      )
      .execute();
  }
}

/** A case's closing, and the STRs reporting it. */
async function applyOutcome(db: Kysely<RulePerformanceTables>, event: StoredEvent, business: string): Promise<void> {
  switch (event.type) {
    case 'CaseDispositionSet': {
      const { caseId, disposition } = event.data as Extract<CaseEvent, { type: 'CaseDispositionSet' }>['data'];
      await db
        .updateTable('rule_performance_case_outcomes')
        .set({ closed_at: event.recordedAt, disposition: dispositionOf(disposition) })
        .where('business_id', '=', business)
        .where('case_id', '=', caseId)
        .execute();
      return;
    }
    case 'ReportDrafted': {
      const draft = event.data as Extract<ReportEvent, { type: 'ReportDrafted' }>['data'];
      if (draft.kind !== 'str' || draft.caseId === null) return;
      await db
        .insertInto('rule_performance_strs')
        .values({ business_id: business, report_id: draft.reportId, case_id: draft.caseId })
        .onConflict((oc) => oc.columns(['business_id', 'report_id']).doNothing())
        .execute();
      return;
    }
    case 'ReportSubmitted': {
      const { reportId } = event.data as Extract<ReportEvent, { type: 'ReportSubmitted' }>['data'];
      const str = await db
        .selectFrom('rule_performance_strs')
        .select('case_id')
        .where('business_id', '=', business)
        .where('report_id', '=', reportId)
        .executeTakeFirst();
      if (!str) return;
      await db
        .updateTable('rule_performance_case_outcomes')
        .set({ str_at: event.recordedAt })
        .where('business_id', '=', business)
        .where('case_id', '=', str.case_id)
        .where('str_at', 'is', null)
        .execute();
      return;
    }
  }
}
