import type { Decision } from './events.js';

/**
 * The decision as `/instant` and `engine.decide` answer it: the interface's fields, with `missingFeatures` only when
 * asked for. The interface does not list it, and for a lean request it names most fields the rules read, so a switch
 * gets the interface's answer unless it wants the explanation; the stored decision always keeps it.
 */
export function decisionAnswer(decision: Decision, withMissingFeatures: boolean): Decision {
  if (withMissingFeatures || decision.missingFeatures === undefined) return decision;
  const { missingFeatures: _, ...answer } = decision;
  return answer;
}
