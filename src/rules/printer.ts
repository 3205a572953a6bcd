// Prints the AST back to source text with the fewest parentheses that parse to the same tree. Used for the
// canonical identity of velocity features, for explaining fired rules, and by the round-trip property test.
import type { Clause, Expr, Item, RuleFile } from './ast.js';

// Binding strength of each level of the grammar, loosest first.
const OR = 1;
const AND = 2;
const NOT = 3;
const PRED = 4;
const SUM = 5;
const PROD = 6;
const UNARY = 7;
const ATOM = 8;

function level(e: Expr): number {
  switch (e.kind) {
    case 'logic':
      return e.op === 'or' ? OR : AND;
    case 'not':
      return NOT;
    case 'compare':
    case 'between':
    case 'inSet':
    case 'inList':
    case 'missing':
      return PRED;
    case 'arith':
      return e.op === '+' || e.op === '-' ? SUM : PROD;
    case 'neg':
      return UNARY;
    default:
      return ATOM;
  }
}

export function quote(text: string): string {
  return `"${text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')}"`;
}

const not = (negated: boolean): string => (negated ? 'not ' : '');

export function printExpr(e: Expr, min = OR): string {
  const text = printBare(e);
  return level(e) < min ? `(${text})` : text;
}

function printBare(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'str':
      return quote(e.value);
    case 'bool':
      return String(e.value);
    case 'field':
      return e.path;
    case 'neg':
      return `-${printExpr(e.operand, UNARY)}`;
    case 'not':
      return `not ${printExpr(e.operand, NOT)}`;
    case 'logic': {
      const l = level(e);
      return `${printExpr(e.left, l)} ${e.op} ${printExpr(e.right, l + 1)}`;
    }
    case 'arith': {
      const l = level(e);
      return `${printExpr(e.left, l)} ${e.op} ${printExpr(e.right, l + 1)}`;
    }
    case 'compare':
      return `${printExpr(e.left, SUM)} ${e.op} ${printExpr(e.right, SUM)}`;
    case 'between':
      return `${printExpr(e.value, SUM)} ${not(e.negated)}between ${printExpr(e.low, SUM)} and ${printExpr(e.high, SUM)}`;
    case 'inSet':
      return `${printExpr(e.value, SUM)} ${not(e.negated)}in [${e.items.map((i) => printExpr(i)).join(', ')}]`;
    case 'inList':
      return `${printExpr(e.value, SUM)} ${not(e.negated)}in list ${e.list}`;
    case 'missing':
      return `${printExpr(e.value, SUM)} is ${not(e.negated)}missing`;
    case 'call':
      return `${e.name}(${e.args.map((a) => printExpr(a)).join(', ')})`;
    case 'velocity': {
      const arg = e.arg ? `${printExpr(e.arg)} ` : '';
      const filter = e.filter ? ` where ${printExpr(e.filter)}` : '';
      const unit = e.window.amount === '1' ? e.window.unit : `${e.window.unit}s`;
      return `${e.fn}(${arg}by ${e.key} over ${e.window.amount} ${unit}${filter})`;
    }
  }
}

function printClause(c: Clause): string {
  switch (c.kind) {
    case 'when':
      return `when ${printExpr(c.expr)}`;
    case 'score':
      return `score ${c.value}`;
    case 'reason':
      return `reason ${c.code} ${c.severity} ${quote(c.message)}`;
    case 'tags':
      return `tags ${c.tags.join(', ')}`;
    case 'force':
      return `force ${c.action}`;
  }
}

function printItem(item: Item): string {
  if (item.kind === 'rule') {
    return [`rule ${item.id} ${quote(item.title)}`, ...item.clauses.map((c) => `  ${printClause(c)}`), 'end'].join('\n');
  }
  return ['decide', ...item.thresholds.map((t) => `  ${t.action} at ${t.at}`), `  otherwise ${item.otherwise}`, 'end'].join('\n');
}

export function printFile(file: RuleFile): string {
  return `${file.items.map(printItem).join('\n\n')}\n`;
}
