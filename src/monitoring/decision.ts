// Turns a ruleset's evaluation into the decision the interface returns, applying the engine's own hard stop:
// a blacklisted party is rejected whatever the score and whatever the rule files say.
import type { CompiledRuleset, Evaluation, Reason } from '../rules/index.js';
import { LISTS, type Decision, type FeaturesUsed, type FiredRuleView } from './events.js';

/** The rule id under which the engine's own blacklist stop appears in ruleResult. */
export const ENGINE_BLACKLIST_RULE = 'ENGINE_BLACKLIST';
const BLACKLIST_REASON: Reason = { code: 'BL000', message: 'A party of this transaction is on a blacklist', severity: 'critical' };

export function toDecision(
  transactionId: string,
  ruleset: CompiledRuleset,
  evaluation: Evaluation,
  hits: FeaturesUsed['blacklistHits'],
  missing: readonly string[] = [],
): Decision {
  // The fields the rules read that the request lacked: a rule on them could neither fire nor clear the request.
  const missingFeatures = missing.length > 0 ? { missingFeatures: [...missing] } : {};
  const fired: FiredRuleView[] = evaluation.fired.map((f) => ({
    id: f.id,
    title: f.title,
    score: f.score.toString(),
    reason: f.reason,
    forced: f.force?.name ?? null,
    observed: f.observed,
  }));
  const strongest = ruleset.schema.actions[ruleset.schema.actions.length - 1]!;
  if (hits.length > 0 && evaluation.action.result !== strongest.name) {
    fired.push({
      id: ENGINE_BLACKLIST_RULE,
      title: 'Party on a blacklist',
      score: '100',
      reason: BLACKLIST_REASON,
      forced: strongest.name,
      observed: hits.map((h) => ({ test: `${h.field} in list ${LISTS[h.list].ruleList}`, holds: true, values: { [h.field]: h.value } })),
    });
    return {
      transactionId,
      riskScore: '100',
      action: { result: strongest.name, code: strongest.code },
      ruleResult: fired,
      reason: BLACKLIST_REASON,
      ...missingFeatures,
    };
  }
  return {
    transactionId,
    riskScore: evaluation.riskScore,
    action: { ...evaluation.action },
    ruleResult: fired.length === 0 ? null : fired,
    reason: { ...evaluation.reason },
    ...missingFeatures,
  };
}
