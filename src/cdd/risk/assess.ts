// Customer risk in the rule language: rules/customer-risk/*.rules compiled against the customer schema, with
// the shared lists (rules/lists) and its own (rules/customer-risk/lists). The rating and every factor's
// contribution are stored with each assessment, so a rating can be explained after the rules change.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileSources, readRuleSources, type CompiledRuleset, type FeatureContext, type SourceFile } from '../../rules/index.js';
import type { BySubject } from '../customer-projection.js';
import type { Confirmations, CustomerDoc, CustomerRiskSummary, RiskRating } from '../types.js';
import { riskInput } from './inputs.js';
import { customerRiskSchema } from './schema.js';

const AUTO_HIGH = 'auto_high';

async function listFiles(dir: string): Promise<SourceFile[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.txt')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return Promise.all(names.map(async (n) => ({ path: join(dir, n), text: await readFile(join(dir, n), 'utf8') })));
}

function context(now: Date): FeatureContext {
  return {
    now: now.getTime(),
    inList: () => false,
    velocity: () => undefined,
    firstSeen: () => undefined,
    lastSeen: () => undefined,
  };
}

export class CustomerRiskModel {
  private constructor(readonly ruleset: CompiledRuleset) {}

  /** Throws RuleErrors naming file, line and column when a rule does not check against the customer schema. */
  static async load(rulesDir: string): Promise<CustomerRiskModel> {
    const own = await readRuleSources(join(rulesDir, 'customer-risk'));
    const shared = await listFiles(join(rulesDir, 'lists'));
    const ruleset = compileSources({ files: own.files, lists: [...shared, ...own.lists] }, { schema: customerRiskSchema });
    return new CustomerRiskModel(ruleset);
  }

  assess(doc: CustomerDoc, confirmations: BySubject<Confirmations>, now: Date): CustomerRiskSummary {
    const evaluation = this.ruleset.evaluate(riskInput(doc, confirmations), context(now));
    const tagsOf = new Map(this.ruleset.rules.map((r) => [r.id, r.tags]));
    const factors = evaluation.fired.map((f) => ({
      rule: f.id,
      title: f.title,
      score: f.score.toNumber(),
      reason: f.reason.message,
      tags: [...(tagsOf.get(f.id) ?? [])],
    }));
    const categories = new Set(factors.filter((f) => f.tags.includes(AUTO_HIGH)).flatMap((f) => f.tags.filter((t) => t !== AUTO_HIGH)));
    return {
      overallScore: Number(evaluation.riskScore),
      overallDecision: evaluation.action.code,
      overallRating: evaluation.action.result as RiskRating,
      coverageStatus: 'computed',
      autoHighRiskCategories: [...categories].sort(),
      computedAt: now.toISOString(),
      factors,
      rulesetVersion: evaluation.rulesetVersion,
    };
  }
}
