// The syntax tree of the rule language. Every node carries the position of the token that best locates an
// error about it (the operator for operator nodes, the first token otherwise), so the checker can report
// `file:line:col` without re-reading the source.

export interface Span {
  readonly line: number;
  readonly col: number;
}

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type ArithOp = '+' | '-' | '*' | '/' | '%';
export type TimeUnit = 'minute' | 'hour' | 'day';
export type VelocityFn = 'count' | 'sum' | 'avg' | 'max' | 'distinct';

export interface Duration {
  readonly amount: string;
  readonly unit: TimeUnit;
  readonly span: Span;
}

export type Expr =
  | { readonly kind: 'num'; readonly value: string; readonly span: Span }
  | { readonly kind: 'str'; readonly value: string; readonly span: Span }
  | { readonly kind: 'bool'; readonly value: boolean; readonly span: Span }
  | { readonly kind: 'field'; readonly path: string; readonly span: Span }
  | { readonly kind: 'neg'; readonly operand: Expr; readonly span: Span }
  | { readonly kind: 'not'; readonly operand: Expr; readonly span: Span }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | { readonly kind: 'logic'; readonly op: 'and' | 'or'; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | {
      readonly kind: 'between';
      readonly negated: boolean;
      readonly value: Expr;
      readonly low: Expr;
      readonly high: Expr;
      readonly span: Span;
    }
  | { readonly kind: 'inSet'; readonly negated: boolean; readonly value: Expr; readonly items: readonly Expr[]; readonly span: Span }
  | {
      readonly kind: 'inList';
      readonly negated: boolean;
      readonly value: Expr;
      readonly list: string;
      readonly listSpan: Span;
      readonly span: Span;
    }
  | { readonly kind: 'missing'; readonly negated: boolean; readonly value: Expr; readonly span: Span }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[]; readonly span: Span }
  | {
      readonly kind: 'velocity';
      readonly fn: string;
      readonly arg: Expr | null;
      readonly key: string;
      readonly keySpan: Span;
      readonly window: Duration;
      readonly filter: Expr | null;
      readonly span: Span;
    };

export type ExprKind = Expr['kind'];
export type ExprOf<K extends ExprKind> = Extract<Expr, { kind: K }>;

export type Clause =
  | { readonly kind: 'when'; readonly expr: Expr; readonly span: Span }
  | { readonly kind: 'score'; readonly value: string; readonly span: Span }
  | {
      readonly kind: 'reason';
      readonly code: string;
      readonly severity: string;
      readonly severitySpan: Span;
      readonly message: string;
      readonly span: Span;
    }
  | { readonly kind: 'tags'; readonly tags: readonly string[]; readonly span: Span }
  | { readonly kind: 'force'; readonly action: string; readonly span: Span };

export interface RuleNode {
  readonly kind: 'rule';
  readonly id: string;
  readonly idSpan: Span;
  readonly title: string;
  readonly clauses: readonly Clause[];
  readonly span: Span;
}

export interface Threshold {
  readonly action: string;
  readonly at: string;
  readonly span: Span;
}

export interface DecideNode {
  readonly kind: 'decide';
  readonly thresholds: readonly Threshold[];
  readonly otherwise: string;
  readonly otherwiseSpan: Span;
  readonly span: Span;
}

export type Item = RuleNode | DecideNode;

export interface RuleFile {
  readonly file: string;
  readonly items: readonly Item[];
}

/** Calls `visit` on `expr` and every expression below it, parents first. */
export function walkExpr(expr: Expr, visit: (e: Expr) => void): void {
  visit(expr);
  for (const child of children(expr)) walkExpr(child, visit);
}

export function children(expr: Expr): readonly Expr[] {
  switch (expr.kind) {
    case 'num':
    case 'str':
    case 'bool':
    case 'field':
      return [];
    case 'neg':
    case 'not':
      return [expr.operand];
    case 'arith':
    case 'logic':
    case 'compare':
      return [expr.left, expr.right];
    case 'between':
      return [expr.value, expr.low, expr.high];
    case 'inSet':
      return [expr.value, ...expr.items];
    case 'inList':
    case 'missing':
      return [expr.value];
    case 'call':
      return expr.args;
    case 'velocity':
      return [...(expr.arg ? [expr.arg] : []), ...(expr.filter ? [expr.filter] : [])];
  }
}

/** Position of the first token of an expression (operator nodes carry their operator's position). */
export function startOf(expr: Expr): Span {
  switch (expr.kind) {
    case 'arith':
    case 'logic':
    case 'compare':
      return startOf(expr.left);
    case 'between':
    case 'inSet':
    case 'inList':
    case 'missing':
      return startOf(expr.value);
    default:
      return expr.span;
  }
}
