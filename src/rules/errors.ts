// One error type for every stage (lexer, parser, checker, loader) so callers print them the same way:
// one `file:line:col message` line each.

export interface RuleDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export function formatDiagnostic(d: RuleDiagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.message}`;
}

export class RuleErrors extends Error {
  readonly errors: readonly RuleDiagnostic[];

  constructor(errors: readonly RuleDiagnostic[]) {
    super(errors.map(formatDiagnostic).join('\n'));
    this.name = 'RuleErrors';
    this.errors = errors;
  }

  format(): string {
    return this.message;
  }
}

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Names longer than this get no suggestion: the distance costs the product of the lengths, per candidate. */
const MAX_SUGGESTED_LENGTH = 64;

/** ` (did you mean X?)` for the closest candidate within a third of the word's length, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  if (word.length > MAX_SUGGESTED_LENGTH) return '';
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    // A candidate whose length alone puts it out of reach costs nothing to skip (uploaded list names can be long).
    if (Math.abs(c.length - word.length) >= bestDistance) continue;
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}
