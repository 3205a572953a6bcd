import type { ShadowReport } from './report.js';

/** The report as text (the CLI's `rules shadow`). */
export function formatShadow(r: ShadowReport): string {
  const s = r.shadow;
  const lines = [
    `Shadow ${s.shadowId}, candidate ${s.candidateVersion}: ${s.status}${s.stopReason ? ` (${s.stopReason} at ${s.stoppedAt})` : `, until ${s.until} or ${s.maxDecisions} decisions`}`,
    `Window ${r.window.from ?? '-'} .. ${r.window.to ?? '-'}: ${r.decisions} decisions evaluated, ${r.changed} would change${r.unreproducible > 0 ? `, ${r.unreproducible} not reproducible` : ''}`,
  ];
  const pairs = Object.entries(r.transitions).sort((a, b) => b[1] - a[1]);
  if (pairs.length > 0) lines.push('', 'Changed decisions:', ...pairs.map(([p, n]) => `  ${p.padEnd(22)} ${n}`));
  const rules = Object.entries(r.ruleHits).sort((a, b) => a[0].localeCompare(b[0]));
  if (rules.length > 0) {
    lines.push('', `${'Rule'.padEnd(28)} ${'deciding'.padStart(9)} ${'candidate'.padStart(10)}`);
    for (const [id, h] of rules) lines.push(`${id.padEnd(28)} ${String(h.deciding).padStart(9)} ${String(h.candidate).padStart(10)}`);
  }
  const { page, limit, total, items } = r.changes;
  if (total > 0) {
    lines.push('', `Changes ${(page - 1) * limit + 1}-${(page - 1) * limit + items.length} of ${total}:`);
    for (const c of items)
      lines.push(
        `  ${c.reference} (${c.customer ?? 'no customer'}) at ${c.decidedAt}: ${c.pair} [${c.decidingFired.join(', ')}] → [${c.candidateFired.join(', ')}]`,
      );
  }
  return lines.join('\n');
}

/** The four-eyes request to publish the running shadow: the console and the API ask for it alike. */
export function publishRequest(r: ShadowReport, reason: string) {
  return {
    action: 'ruleset.publish' as const,
    subject: { kind: 'ruleset' as const, id: r.shadow.shadowId },
    summary: `Publish candidate ${r.shadow.candidateVersion} (shadow ${r.shadow.shadowId}: ${r.changed} of ${r.decisions} decisions would change)`,
    payload: { shadowId: r.shadow.shadowId },
    reason,
  };
}
