// Public API of the rule language. See docs/rules.md for the language itself.
export type { Clause, DecideNode, Expr, RuleFile, RuleNode, Span } from './ast.js';
export { parseRules } from './parser.js';
export { printExpr, printFile } from './printer.js';
export { checkRuleset, type CheckedRuleset, type CheckOptions, type Reason, type Severity } from './checker.js';
export { compile, NO_RULE_FIRED, type CompiledRuleset, type Evaluation, type FiredRule, type RuleInfo } from './compiler.js';
export type { Observation } from './explain.js';
export { RuleErrors, formatDiagnostic, type RuleDiagnostic } from './errors.js';
export type { ActionDef, ContextFeature, EngineListDef, FieldType, Schema } from './schema.js';
export { transactionSchema, TRANSACTION_FIELDS } from './fields.js';
export type { FeatureContext, ScreeningKind } from './context.js';
export type { Env } from './env.js';
export type { FeatureSpec } from './features.js';
export { VelocityStore, type VelocityStats, type VelocityUndo } from './velocity/windows.js';
export { sliceSnapshot, type FeatureSnapshot, type VelocitySnapshot } from './velocity/snapshot.js';
export { HistoryStore, missingReads, nothingToRead, type HistoryReads, type HistorySnapshot, type HistoryUndo } from './history.js';
export {
  createTransactionContext,
  MemoryLists,
  RulesRuntime,
  type ListProvider,
  type Providers,
  type TransactionContextOptions,
} from './runtime.js';
export {
  candidateErrors,
  compileSources,
  contentVersion,
  loadRuleset,
  readRuleSources,
  type RuleSources,
  type RulesetOptions,
  type SourceFile,
} from './loader.js';
export { watchRuleset, type ReloadOptions, type RulesetWatcher } from './reload.js';
export { runCase, runTestFile, RuleTestFileSchema, type RuleTestCase, type RuleTestResult } from './ruletest.js';
export {
  backtest,
  formatBacktest,
  Replayer,
  type Replayed,
  type BacktestOptions,
  type BacktestReport,
  type BacktestSample,
  type Outcome,
  type StoredDecision,
  type UnreproducibleDecision,
} from './backtest.js';
export { NotYetLoaded, Unreproducible, type ObservedFeatures } from './replay-context.js';
export { rulesCheckCommand, rulesTestCommand, type CommandResult } from './cli.js';
export { Dec, toDecimal } from './values.js';
