// Wraps the precompiled nearley grammar. Syntax errors become one `file:line:col` diagnostic naming the
// unexpected token and what would have been accepted, never nearley's derivation trace.
import nearley from 'nearley';
import { children, type Expr, type RuleFile, type Span } from './ast.js';
import { RuleErrors } from './errors.js';
import grammar from './grammar/rules.generated.js';
import { countTokens } from './lexer.js';

/**
 * Bounds on what one file may hold. nearley's Earley parse of a long comma list grows faster than its length (8,000
 * values in one `in [...]` took 0.9-1.6 s; 450,000 ran the process out of memory), and the checker, compiler and
 * interpreter recurse once per level of an expression (10,000 nested `not`s overflowed the stack). Rule files are
 * uploaded to the backtest by API clients, so neither may be left to the input; the bundled files are a few
 * hundred tokens each, and long value lists belong in lists/*.txt.
 */
export const MAX_FILE_TOKENS = 10_000;
export const MAX_EXPRESSION_DEPTH = 100;

const compiled = nearley.Grammar.fromCompiled(grammar);

interface ParserState {
  rule: { symbols: unknown[] };
  dot: number;
}

const TOKEN_NAMES: Record<string, string> = {
  ident: 'a name',
  number: 'a number',
  string: 'a quoted text',
  UNIT: 'minutes, hours or days',
};

function describeSymbol(symbol: unknown): string | undefined {
  if (typeof symbol !== 'object' || symbol === null) return undefined;
  if ('literal' in symbol) return `"${String(symbol.literal)}"`;
  if ('type' in symbol && typeof symbol.type === 'string') return TOKEN_NAMES[symbol.type] ?? `"${symbol.type.toLowerCase()}"`;
  return undefined;
}

function expected(parser: nearley.Parser, columnIndex: number): string {
  const column = (parser as unknown as { table: { states: ParserState[] }[] }).table[columnIndex];
  const names = new Set<string>();
  for (const state of column?.states ?? []) {
    const name = describeSymbol(state.rule.symbols[state.dot]);
    if (name) names.add(name);
  }
  const sorted = [...names].sort();
  return sorted.length === 0 ? '' : `, expected ${sorted.length === 1 ? '' : 'one of '}${sorted.join(', ')}`;
}

function describeToken(token: { type?: string; text: string }): string {
  if (token.type === 'error') return `character "${token.text[0]}"`;
  return token.type === 'string' ? `text ${token.text}` : `"${token.text}"`;
}

function endPosition(text: string): { line: number; col: number } {
  const lines = text.split('\n');
  return { line: lines.length, col: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

export function parseRules(file: string, text: string): RuleFile {
  if (countTokens(text, MAX_FILE_TOKENS) > MAX_FILE_TOKENS) {
    const message = `the file has more than ${MAX_FILE_TOKENS.toLocaleString('en-US')} tokens: split its rules over several files, and keep long value lists in lists/*.txt`;
    throw new RuleErrors([{ file, line: 1, col: 1, message }]);
  }
  const parser = new nearley.Parser(compiled);
  try {
    parser.feed(text);
  } catch (e) {
    const token = (e as { token?: { type?: string; text: string; line: number; col: number } }).token;
    if (!token) throw e;
    const table = (parser as unknown as { table: unknown[] }).table;
    const message = `unexpected ${describeToken(token)}${expected(parser, table.length - 2)}`;
    throw new RuleErrors([{ file, line: token.line, col: token.col, message }]);
  }
  const results = parser.results as RuleFile['items'][];
  if (results.length === 0) {
    const table = (parser as unknown as { table: unknown[] }).table;
    throw new RuleErrors([{ file, ...endPosition(text), message: `unexpected end of file${expected(parser, table.length - 1)}` }]);
  }
  // The grammar is unambiguous (the round-trip property test parses thousands of random trees); several
  // results would mean a grammar bug, which must not be silently resolved one way.
  if (results.length > 1) {
    throw new RuleErrors([{ file, line: 1, col: 1, message: `internal error: ambiguous grammar (${results.length} parses)` }]);
  }
  const parsed = { file, items: results[0]! };
  const tooDeep = deepExpressions(parsed);
  if (tooDeep.length > 0)
    throw new RuleErrors(
      tooDeep.map((at) => ({
        file,
        line: at.line,
        col: at.col,
        message: `the expression is nested more than ${MAX_EXPRESSION_DEPTH} levels deep: split it over several rules`,
      })),
    );
  return parsed;
}

/** Where conditions deeper than MAX_EXPRESSION_DEPTH are, found without recursion (a recursive walk would overflow). */
function deepExpressions(parsed: RuleFile): Span[] {
  const found: Span[] = [];
  for (const item of parsed.items) {
    if (item.kind !== 'rule') continue;
    for (const clause of item.clauses) {
      if (clause.kind !== 'when') continue;
      const stack: [Expr, number][] = [[clause.expr, 1]];
      for (let next = stack.pop(); next; next = stack.pop()) {
        const [expr, depth] = next;
        if (depth > MAX_EXPRESSION_DEPTH) {
          found.push(clause.span);
          break;
        }
        for (const child of children(expr)) stack.push([child, depth + 1]);
      }
    }
  }
  return found;
}
