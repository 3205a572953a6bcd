// Semantic checks over parsed files: rule ids, clauses, severities, actions and thresholds, and every
// expression's names and types (check-expr.ts). All errors of all files are collected so an analyst fixes them in
// one pass; the result carries the inferred type of every expression so the compiler can pick specialised closures.
import type { Clause, DecideNode, Expr, RuleFile, Span } from './ast.js';
import { Checker } from './check-expr.js';
import { RuleErrors } from './errors.js';
import type { FieldType, Schema } from './schema.js';

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

export interface Reason {
  readonly code: string;
  readonly message: string;
  readonly severity: Severity;
}

export interface CheckedRule {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly when: Expr;
  readonly score: string;
  readonly reason: Reason;
  readonly force: string | undefined;
  readonly file: string;
  readonly line: number;
}

export interface CheckedDecide {
  readonly thresholds: readonly { readonly action: string; readonly at: string }[];
  readonly otherwise: string;
}

export interface CheckedRuleset {
  readonly rules: readonly CheckedRule[];
  readonly decide: CheckedDecide;
  readonly types: ReadonlyMap<Expr, FieldType>;
}

export interface CheckOptions {
  readonly schema: Schema;
  /** Names of the lists loaded from files (rules/lists/<name>.txt). */
  readonly fileLists: Iterable<string>;
}

function clauseOf<K extends Clause['kind']>(c: Checker, clauses: readonly Clause[], kind: K): Extract<Clause, { kind: K }> | undefined {
  const found = clauses.filter((x): x is Extract<Clause, { kind: K }> => x.kind === kind);
  for (const dup of found.slice(1)) c.error(dup.span, `duplicate ${kind} clause`);
  return found[0];
}

function checkDecide(c: Checker, schema: Schema, decide: DecideNode, maxScore: number | undefined): CheckedDecide {
  const actions = schema.actions.map((a) => a.name);
  const known = (name: string, span: Span): boolean =>
    actions.includes(name) || !c.error(span, `unknown action ${name}${c.suggest(name, actions)}; actions are ${actions.join(', ')}`);
  known(decide.otherwise, decide.otherwiseSpan);
  const seen = new Map<string, Span>();
  let previous: { action: string; at: number } | undefined;
  for (const t of decide.thresholds) {
    known(t.action, t.span);
    const at = Number(t.at);
    if (seen.has(t.action)) c.error(t.span, `duplicate threshold for ${t.action}`);
    seen.set(t.action, t.span);
    if (at > 100) c.error(t.span, `threshold ${t.action} at ${t.at} is unreachable: riskScore is at most 100`);
    else if (previous && at >= previous.at) {
      c.error(
        t.span,
        `threshold ${t.action} at ${t.at} is unreachable: ${previous.action} at ${previous.at} already takes every riskScore >= ${previous.at}`,
      );
    } else if (maxScore !== undefined && at > maxScore) {
      c.error(t.span, `threshold ${t.action} at ${t.at} is unreachable: the rules add up to at most ${maxScore}`);
    }
    previous = { action: t.action, at };
  }
  return { thresholds: decide.thresholds.map((t) => ({ action: t.action, at: t.at })), otherwise: decide.otherwise };
}

export function checkRuleset(files: readonly RuleFile[], options: CheckOptions): CheckedRuleset {
  const { schema } = options;
  const c = new Checker(schema, options.fileLists);
  const rules: CheckedRule[] = [];
  const ids = new Map<string, string>();
  let decide: { node: DecideNode; file: string } | undefined;
  for (const file of files) {
    c.file = file.file;
    for (const item of file.items) {
      if (item.kind === 'decide') {
        if (decide)
          c.error(item.span, `duplicate decide section (first at ${decide.file}:${decide.node.span.line}:${decide.node.span.col})`);
        else decide = { node: item, file: file.file };
        continue;
      }
      c.named(item.id, item.idSpan, 'a rule id');
      const where = `${file.file}:${item.span.line}:${item.span.col}`;
      const first = ids.get(item.id);
      if (first) c.error(item.span, `duplicate rule id ${item.id} (first defined at ${first})`);
      ids.set(item.id, first ?? where);
      const when = clauseOf(c, item.clauses, 'when');
      const score = clauseOf(c, item.clauses, 'score');
      const reason = clauseOf(c, item.clauses, 'reason');
      const tags = clauseOf(c, item.clauses, 'tags');
      const force = clauseOf(c, item.clauses, 'force');
      for (const [name, clause] of [
        ['when', when],
        ['score', score],
        ['reason', reason],
      ] as const) {
        if (!clause) c.error(item.span, `rule ${item.id} has no ${name} clause`);
      }
      if (when) c.expect(when.expr, 'current', 'boolean', 'the when condition');
      if (reason && !SEVERITIES.includes(reason.severity as Severity)) {
        c.error(
          reason.severitySpan,
          `unknown severity ${reason.severity}${c.suggest(reason.severity, SEVERITIES)}; use ${SEVERITIES.join(', ')}`,
        );
      }
      const actions = schema.actions.map((a) => a.name);
      if (force && !actions.includes(force.action)) {
        c.error(force.span, `unknown action ${force.action}${c.suggest(force.action, actions)}; actions are ${actions.join(', ')}`);
      }
      if (when && score && reason) {
        rules.push({
          id: item.id,
          title: item.title,
          tags: tags?.tags ?? [],
          when: when.expr,
          score: score.value,
          reason: { code: reason.code, message: reason.message, severity: reason.severity as Severity },
          force: force?.action,
          file: file.file,
          line: item.span.line,
        });
      }
    }
  }
  let checkedDecide: CheckedDecide | undefined;
  if (!decide) c.errors.push({ file: files[0]?.file ?? '(no files)', line: 1, col: 1, message: 'the ruleset has no decide section' });
  else {
    c.file = decide.file;
    // Only meaningful once every rule is valid: a half-checked ruleset would report bogus maxima.
    const maxScore = c.errors.length === 0 ? rules.reduce((sum, r) => sum + Math.max(0, Number(r.score)), 0) : undefined;
    checkedDecide = checkDecide(c, schema, decide.node, maxScore);
  }
  if (c.errors.length > 0 || !checkedDecide) throw new RuleErrors(c.errors);
  return { rules, decide: checkedDecide, types: c.types };
}
