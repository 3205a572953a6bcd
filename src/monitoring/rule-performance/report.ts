// Each rule's figures over a period of days, read from the rule-performance read model (projection.ts).
// A case is credited in full to every rule that fired on any of its alerts: each of those rules brought the case
// to an analyst, and splitting it would make a rule's precision depend on which other rules fired beside it.
import type { Kysely } from 'kysely';
import { CASE_DISPOSITIONS, type CaseDisposition } from '../../cases/events.js';
import type { Clock } from '../../clock.js';
import { ValidationError } from '../../errors.js';
import { Dec } from '../../rules/index.js';
import type { EventStore } from '../../store/index.js';
import type { RulePerformanceTables } from './projection.js';

export interface RuleFigures {
  ruleId: string;
  /** Decisions it fired on. */
  hits: number;
  /** Alerts raised by decisions it fired on (decisions not approved, each joining or opening a case). */
  alerts: number;
  /** Cases its alerts joined, counted in the period of the rule's first alert in each. */
  cases: number;
  /** Of those, the cases closed, by disposition. */
  closed: number;
  dispositions: Record<CaseDisposition, number>;
  /** Closed as reported or customer exited: the alert found what the rule looks for. */
  truePositives: number;
  /** truePositives / closed, to 4 places; null while none is closed. */
  precision: string | null;
  /** Cases with an STR submitted to the FIU. */
  strs: number;
  /** strs / cases, to 4 places; null without cases. */
  strShare: string | null;
  /** Median hours from a case's opening to its closing, over the closed cases, to 2 places. */
  medianHoursToClose: string | null;
}

export interface RuleDay {
  day: string;
  ruleId: string;
  hits: number;
  alerts: number;
}

export interface RulePerformanceReport {
  /** The period, UTC days, both included. */
  from: string;
  to: string;
  rules: RuleFigures[];
  days: RuleDay[];
}

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(value: string, field: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!DAY.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new ValidationError(`${field} must be a day written YYYY-MM-DD`, field);
  return ms;
}

/** The period asked for: `to` defaults to today, `from` to 29 days before `to`. */
export function period(clock: Clock, query: { from?: string; to?: string }): { from: string; to: string } {
  const to = query.to === undefined ? Date.parse(`${clock.now().toISOString().slice(0, 10)}T00:00:00Z`) : parseDay(query.to, 'to');
  const from = query.from === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : parseDay(query.from, 'from');
  if (from > to) throw new ValidationError('from must not be after to', 'from');
  if ((to - from) / DAY_MS + 1 > MAX_DAYS) throw new ValidationError(`from must be at most ${MAX_DAYS - 1} days before to`, 'from');
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(from), to: day(to) };
}

const ratio = (a: number, b: number): string | null => (b === 0 ? null : new Dec(a).div(b).toDecimalPlaces(4).toString());

function medianHours(durationsMs: number[]): string | null {
  if (durationsMs.length === 0) return null;
  const sorted = [...durationsMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const ms = sorted.length % 2 === 1 ? new Dec(sorted[mid]!) : new Dec(sorted[mid - 1]!).plus(sorted[mid]!).div(2);
  return ms.div(3_600_000).toDecimalPlaces(2).toString();
}

const TRUE_POSITIVES: readonly CaseDisposition[] = ['reported', 'customer exited'];

export class RulePerformance {
  constructor(
    private readonly db: Kysely<RulePerformanceTables>,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async report(businessId: string, query: { from?: string; to?: string } = {}): Promise<RulePerformanceReport> {
    const { from, to } = period(this.clock, query);
    await this.store.settleDeferred();
    const dayRows = await this.db
      .selectFrom('rule_performance_days')
      .select(['rule_id', 'day', 'hits', 'alerts'])
      .where('business_id', '=', businessId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day')
      .orderBy('rule_id')
      .execute();
    const caseRows = await this.db
      .selectFrom('rule_performance_cases as r')
      .innerJoin('rule_performance_case_outcomes as o', (j) =>
        j.onRef('o.business_id', '=', 'r.business_id').onRef('o.case_id', '=', 'r.case_id'),
      )
      .select(['r.rule_id', 'o.opened_at', 'o.closed_at', 'o.disposition', 'o.str_at'])
      .where('r.business_id', '=', businessId)
      .where('r.day', '>=', from)
      .where('r.day', '<=', to)
      .execute();

    const figures = new Map<string, RuleFigures & { durations: number[] }>();
    const of = (ruleId: string) => {
      let f = figures.get(ruleId);
      if (!f) {
        f = {
          ruleId,
          hits: 0,
          alerts: 0,
          cases: 0,
          closed: 0,
          dispositions: Object.fromEntries(CASE_DISPOSITIONS.map((d) => [d, 0])) as Record<CaseDisposition, number>,
          truePositives: 0,
          precision: null,
          strs: 0,
          strShare: null,
          medianHoursToClose: null,
          durations: [],
        };
        figures.set(ruleId, f);
      }
      return f;
    };
    for (const r of dayRows) {
      const f = of(r.rule_id);
      f.hits += Number(r.hits);
      f.alerts += Number(r.alerts);
    }
    for (const r of caseRows) {
      const f = of(r.rule_id);
      f.cases++;
      if (r.str_at !== null) f.strs++;
      if (r.closed_at === null || r.disposition === null) continue;
      f.closed++;
      const disposition = r.disposition as CaseDisposition;
      f.dispositions[disposition]++;
      if (TRUE_POSITIVES.includes(disposition)) f.truePositives++;
      f.durations.push(Date.parse(r.closed_at) - Date.parse(r.opened_at));
    }
    const rules = [...figures.values()]
      .map(({ durations, ...f }) => ({
        ...f,
        precision: ratio(f.truePositives, f.closed),
        strShare: ratio(f.strs, f.cases),
        medianHoursToClose: medianHours(durations),
      }))
      .sort((a, b) => b.hits - a.hits || (a.ruleId < b.ruleId ? -1 : 1));
    const days = dayRows.map((r) => ({ day: r.day, ruleId: r.rule_id, hits: Number(r.hits), alerts: Number(r.alerts) }));
    return { from, to, rules, days };
  }
}
