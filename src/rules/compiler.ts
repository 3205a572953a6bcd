// Turns a checked ruleset into a CompiledRuleset: one closure per rule condition, the velocity features it
// needs, and the decision logic (score → riskScore → action, forced actions, overall reason).
import type { Decimal } from 'decimal.js';
import type { CheckedRuleset, Reason, Severity } from './checker.js';
import { SEVERITIES } from './checker.js';
import { ExprCompiler, type Fn } from './compile-expr.js';
import type { FeatureContext } from './context.js';
import { Env, NO_CONTEXT } from './env.js';
import { explainer, type Explainer, type Observation } from './explain.js';
import { featureId, featureSpecs, historyReads, type FeatureSpec } from './features.js';
import { walkExpr, type Expr } from './ast.js';
import type { HistoryReads } from './history.js';
import type { ActionDef, Schema } from './schema.js';
import { compareDecimals, Dec, HUNDRED, ZERO } from './values.js';
import type { FileList } from './file-list.js';
import { ruleIdentity } from './identity.js';

export interface RuleInfo {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly score: Decimal;
  readonly reason: Reason;
  readonly force: ActionDef | undefined;
  readonly file: string;
  readonly line: number;
}

export interface FiredRule {
  readonly id: string;
  readonly title: string;
  readonly score: Decimal;
  readonly reason: Reason;
  readonly force: ActionDef | undefined;
  readonly observed: readonly Observation[];
}

export interface Evaluation {
  readonly rulesetVersion: string;
  /** Sum of the scores of the fired rules (may exceed 100 or be negative). */
  readonly score: Decimal;
  /** min(100, max(0, score)) as a decimal string. */
  readonly riskScore: string;
  readonly action: { readonly result: string; readonly code: number };
  /** The most severe fired rule's reason (ties: higher score, then file order), or NO_RULE_FIRED. */
  readonly reason: Reason;
  readonly fired: readonly FiredRule[];
}

export const NO_RULE_FIRED: Reason = { code: 'OK', message: 'No rule fired', severity: 'low' };

export interface CompiledRuleset {
  readonly version: string;
  readonly schema: Schema;
  readonly rules: readonly RuleInfo[];
  readonly features: readonly FeatureSpec[];
  /** The history the rules read: a store built for this ruleset keeps only that. */
  readonly history: HistoryReads;
  readonly fileCount: number;
  /** The request fields the rules read, dotted. */
  readonly fieldsRead: readonly string[];
  /** Which of fieldsRead the request lacks (absent or null): the rules could not judge it on those. */
  missingFields(input: unknown): string[];
  evaluate(input: unknown, ctx: FeatureContext): Evaluation;
  /** evaluate() over an Env from env(): the caller can reuse the Env's converted fields, e.g. to record the request. */
  evaluateEnv(env: Env): Evaluation;
  /** An Env over a request, sized for this ruleset's field slots. */
  env(input: unknown, ctx: FeatureContext): Env;
  /** An Env over a transaction with no feature context, for evaluating velocity filters on past transactions. */
  pastEnv(input: unknown): Env;
  /** Each rule's identity by id (identity.ts): equal identities fire alike and weigh alike. */
  readonly identities: ReadonlyMap<string, string>;
  /** A ruleset of only these rules (same schema and decide section), with only the features they read. */
  only(ids: ReadonlySet<string>): CompiledRuleset;
  /** The evaluation had exactly these rules fired, with what was observed of each: no rule is evaluated. */
  concluded(fired: ReadonlyMap<string, readonly Observation[]>): Evaluation;
}

export interface CompileRulesetOptions {
  readonly schema: Schema;
  readonly version: string;
  readonly fileCount: number;
  readonly fileLists: ReadonlyMap<string, FileList>;
  /** The file lists' normalised values (identity.ts); without them, rules reading a list have identities of their own. */
  readonly listIdentities?: ReadonlyMap<string, string>;
}

interface CompiledRule {
  readonly info: RuleInfo;
  readonly when: Fn;
  readonly explain: Explainer;
  readonly severity: number;
}

function outranks(a: CompiledRule, b: CompiledRule): boolean {
  return a.severity !== b.severity ? a.severity > b.severity : a.info.score.gt(b.info.score);
}

export function compile(checked: CheckedRuleset, options: CompileRulesetOptions): CompiledRuleset {
  const { schema, version } = options;
  // One string instance per feature id, shared by the compiled rules and the specs: the velocity store's map then
  // matches ids by pointer instead of comparing their text on every lookup.
  const ids = new Map<string, string>();
  const internedId = (e: Parameters<typeof featureId>[0]): string => {
    const id = featureId(e);
    const known = ids.get(id);
    if (known !== undefined) return known;
    ids.set(id, id);
    return id;
  };
  const compiler = new ExprCompiler({ schema, types: checked.types, fileLists: options.fileLists, featureId: internedId });
  const actionOf = (name: string): ActionDef => schema.actions.find((a) => a.name === name)!;
  const rank = (a: ActionDef): number => schema.actions.indexOf(a);
  const compiled: CompiledRule[] = checked.rules.map((r) => ({
    info: {
      id: r.id,
      title: r.title,
      tags: r.tags,
      score: new Dec(r.score),
      reason: r.reason,
      force: r.force === undefined ? undefined : actionOf(r.force),
      file: r.file,
      line: r.line,
    },
    when: compiler.compile(r.when),
    explain: explainer(r.when, (e) => compiler.compile(e)),
    severity: SEVERITIES.indexOf(r.reason.severity as Severity),
  }));
  const features = featureSpecs(
    checked.rules.map((r) => r.when),
    schema.velocityKeys,
    (e) => compiler.compile(e),
    internedId,
  );
  // Compilation allocated every field slot above, so envs created from here on are large enough.
  const slotCount = compiler.slotCount;
  const utcOffsetMs = schema.utcOffsetMinutes * 60_000;
  const thresholds = checked.decide.thresholds.map((t) => ({ at: new Dec(t.at), action: actionOf(t.action) }));
  const otherwise = actionOf(checked.decide.otherwise);

  const newEnv = (input: unknown, ctx: FeatureContext): Env => new Env(input, ctx, utcOffsetMs, slotCount);

  function evaluateEnv(env: Env): Evaluation {
    let score = ZERO;
    let top: CompiledRule | undefined;
    let forced: ActionDef | undefined;
    const fired: FiredRule[] = [];
    // Rules that do not fire cost one closure call each: nothing is allocated or printed for them.
    for (let i = 0; i < compiled.length; i++) {
      const rule = compiled[i]!;
      if (rule.when(env) !== true) continue;
      const info = rule.info;
      score = score.plus(info.score);
      if (!top || outranks(rule, top)) top = rule;
      if (info.force && (!forced || rank(info.force) > rank(forced))) forced = info.force;
      fired.push({
        id: info.id,
        title: info.title,
        score: info.score,
        reason: info.reason,
        force: info.force,
        observed: rule.explain(env),
      });
    }
    return conclude(score, top, forced, fired);
  }

  function conclude(score: Decimal, top: CompiledRule | undefined, forced: ActionDef | undefined, fired: FiredRule[]): Evaluation {
    const risk = compareDecimals(score, HUNDRED) > 0 ? HUNDRED : score.isNegative() ? ZERO : score;
    let action = forced;
    for (let i = 0; action === undefined && i < thresholds.length; i++)
      if (compareDecimals(risk, thresholds[i]!.at) >= 0) action = thresholds[i]!.action;
    action ??= otherwise;
    return {
      rulesetVersion: version,
      score,
      riskScore: risk.toString(),
      action: { result: action.name, code: action.code },
      reason: top?.info.reason ?? NO_RULE_FIRED,
      fired,
    };
  }

  // The same accumulation as evaluateEnv's, in rule order, over rules known to have fired.
  function concluded(known: ReadonlyMap<string, readonly Observation[]>): Evaluation {
    let score = ZERO;
    let top: CompiledRule | undefined;
    let forced: ActionDef | undefined;
    const fired: FiredRule[] = [];
    for (const rule of compiled) {
      const observed = known.get(rule.info.id);
      if (observed === undefined) continue;
      const info = rule.info;
      score = score.plus(info.score);
      if (!top || outranks(rule, top)) top = rule;
      if (info.force && (!forced || rank(info.force) > rank(forced))) forced = info.force;
      fired.push({ id: info.id, title: info.title, score: info.score, reason: info.reason, force: info.force, observed });
    }
    return conclude(score, top, forced, fired);
  }

  // A velocity call's key argument (`by receiver`) names a key, read from the field the schema gives it.
  const requestField = (path: string): string | undefined =>
    Object.hasOwn(schema.fields, path) ? path : Object.hasOwn(schema.velocityKeys, path) ? schema.velocityKeys[path] : undefined;
  const fieldsRead = [...new Set(checked.rules.flatMap((r) => fieldPaths(r.when).flatMap((p) => requestField(p) ?? [])))].sort();
  const fieldSteps = fieldsRead.map((path) => ({ path, steps: path.split('.') }));
  const missingFields = (input: unknown): string[] => {
    const missing: string[] = [];
    for (const { path, steps } of fieldSteps) {
      let value = input;
      for (let i = 0; i < steps.length && value !== undefined && value !== null; i++) value = (value as Record<string, unknown>)[steps[i]!];
      if (value === undefined || value === null) missing.push(path);
    }
    return missing;
  };

  return {
    version,
    schema,
    fieldsRead,
    missingFields,
    rules: compiled.map((r) => r.info),
    features,
    history: historyReads(checked.rules.map((r) => r.when)),
    fileCount: options.fileCount,
    evaluate: (input, ctx) => evaluateEnv(newEnv(input, ctx)),
    evaluateEnv,
    env: newEnv,
    pastEnv: (input) => newEnv(input, NO_CONTEXT),
    identities: new Map(checked.rules.map((r) => [r.id, ruleIdentity(r, options.listIdentities)])),
    only: (keep) => compile({ ...checked, rules: checked.rules.filter((r) => keep.has(r.id)) }, options),
    concluded,
  };
}

/** The request fields an expression reads. */
function fieldPaths(expr: Expr): string[] {
  const paths: string[] = [];
  walkExpr(expr, (e) => {
    if (e.kind === 'field') paths.push(e.path);
  });
  return paths;
}
