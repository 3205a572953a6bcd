// Wraps the precompiled nearley grammar. Syntax errors become one `file:line:col` diagnostic naming the
// unexpected token and what would have been accepted, never nearley's derivation trace.
import nearley from 'nearley';
import type { RuleFile } from './ast.js';
import { RuleErrors } from './errors.js';
import grammar from './grammar/rules.generated.js';

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
  return { file, items: results[0]! };
}
