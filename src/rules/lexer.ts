// The moo lexer shared by the generated parser. Dotted names are one token (`transactionData.amount`,
// `blacklist.users`) so that keywords never clash with field names after a dot.
import moo from 'moo';

export const KEYWORDS = [
  'rule',
  'end',
  'when',
  'score',
  'reason',
  'tags',
  'force',
  'decide',
  'at',
  'otherwise',
  'and',
  'or',
  'not',
  'in',
  'list',
  'between',
  'is',
  'missing',
  'true',
  'false',
  'by',
  'over',
  'where',
] as const;

export const UNITS = ['minute', 'minutes', 'hour', 'hours', 'day', 'days'] as const;

// Keyword token types are upper case because the generated TypeScript declares a variable per token type and
// `in`, `is`, `true`... are reserved words.
const keywordTypes: Record<string, string | string[]> = Object.fromEntries(KEYWORDS.map((k) => [k.toUpperCase(), k]));
keywordTypes.UNIT = [...UNITS];

export function unescapeString(text: string): string {
  return text.slice(1, -1).replace(/\\(["\\nt])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

const base = moo.compile({
  ws: { match: /[ \t\r\n]+/, lineBreaks: true },
  comment: /#[^\n]*/,
  number: { match: /[0-9][0-9_]*(?:\.[0-9][0-9_]*)?/, value: (t) => t.replace(/_/g, '') },
  string: { match: /"(?:\\["\\nt]|[^"\\\n])*"/, value: unescapeString },
  ident: { match: /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/, type: moo.keywords(keywordTypes) },
  op: ['>=', '<=', '!=', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', '[', ']', ','],
  error: moo.error,
});

/**
 * The tokens of `text` the grammar would see, counted up to `atMost + 1`: a linear pass before nearley's parse, which
 * resets the lexer when it starts, so sharing it is safe.
 */
export function countTokens(text: string, atMost: number): number {
  lexer.reset(text);
  let count = 0;
  for (let token = lexer.next(); token && count <= atMost; token = lexer.next()) count++;
  return count;
}

// nearley feeds every token to the grammar, so whitespace and comments are dropped here rather than
// cluttering every grammar rule.
export const lexer = {
  reset: (chunk: string, info?: moo.LexerState) => base.reset(chunk, info),
  next(): moo.Token | undefined {
    let token = base.next();
    while (token && (token.type === 'ws' || token.type === 'comment')) token = base.next();
    return token;
  },
  save: () => base.save(),
  formatError: (token: moo.Token) => base.formatError(token),
  has: (type: string) => base.has(type),
};
