export { rulePerformanceProjection, type RulePerformanceTables } from './projection.js';
export { period, RulePerformance, type RuleDay, type RuleFigures, type RulePerformanceReport } from './report.js';
export { formatRulePerformance } from './format.js';
