import type { RulePerformanceReport } from './report.js';

const COLUMNS = ['hits', 'alerts', 'cases', 'closed', 'false pos.', 'true pos.', 'precision', 'STRs', 'STR share', 'median h'] as const;

/** The report as a text table, the rules with most false positives first (the CLI's `rules performance`). */
export function formatRulePerformance(report: RulePerformanceReport): string {
  const rows = [...report.rules]
    .sort((a, b) => b.dispositions['false positive'] - a.dispositions['false positive'] || b.hits - a.hits)
    .map((r) => [
      r.ruleId,
      ...[r.hits, r.alerts, r.cases, r.closed, r.dispositions['false positive'], r.truePositives].map(String),
      r.precision ?? '-',
      String(r.strs),
      r.strShare ?? '-',
      r.medianHoursToClose ?? '-',
    ]);
  const header = ['Rule', ...COLUMNS];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const body = rows.length === 0 ? ['no rule fired in this period'] : rows.map(line);
  return [`Rules from ${report.from} to ${report.to} (UTC days)`, line(header), ...body].join('\n');
}
