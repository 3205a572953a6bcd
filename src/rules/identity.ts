// What makes a rule fire and what its firing does, as one normalised string: two compiled rules with the same
// identity, under the same schema, fire on the same requests and features with the same effect. A shadow
// evaluates only the candidate's rules whose identity the deciding ruleset lacks (src/monitoring/shadow).
import { walkExpr } from './ast.js';
import type { CheckedRule } from './checker.js';
import { printExpr } from './printer.js';
import { Dec } from './values.js';

let unknown = 0;

/**
 * `lists`: each file list's normalised values (a list it lacks is an engine list, read from the state). Without
 * them, a rule reading any list has an identity no other rule shares.
 */
export function ruleIdentity(rule: CheckedRule, lists: ReadonlyMap<string, string> | undefined): string {
  const read: string[] = [];
  walkExpr(rule.when, (e) => {
    if (e.kind === 'inList') {
      const values = lists?.get(e.list);
      read.push(e.list, values !== undefined ? `file ${values}` : lists ? 'engine' : `unknown ${++unknown}`);
    }
  });
  const { code, message, severity } = rule.reason;
  return JSON.stringify([rule.id, printExpr(rule.when), new Dec(rule.score).toString(), code, message, severity, rule.force ?? null, read]);
}

/** A file list's values, whatever their order, comments and blank lines. */
export function listIdentity(text: string): string {
  const values = new Set<string>();
  for (const line of text.split('\n')) {
    const value = line.replace(/#.*/, '').trim();
    if (value !== '') values.add(value);
  }
  return [...values].sort().join('\n');
}
