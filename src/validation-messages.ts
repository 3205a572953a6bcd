// Zod issues as sentences a client developer reads: shared by the HTTP validators and the in-process entry
// points (a payment switch calling `monitoring.decide` gets the same message a route answers with).
import type { z } from 'zod';
import { ValidationError } from './errors.js';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/** `transactionData.reference`, `accounts[0].accountNumber`: the field path as a client developer writes it. */
export function formatPath(path: readonly PathKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

function valueAt(input: unknown, path: readonly PathKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** zod's names for JSON types where they differ from what a client developer calls them. */
const TYPE_NAMES: Record<string, string> = { int: 'integer', record: 'object' };

const FORMATS: Record<string, string> = {
  datetime: 'an ISO 8601 timestamp',
  date: 'a date (YYYY-MM-DD)',
  email: 'an email address',
  url: 'an http or https URL',
};

/** One sentence per problem, naming the field: the only error text most integrators will ever read. */
export function describeIssue(issue: Issue, input: unknown): string {
  const field = formatPath(issue.path) || 'body';
  const missing = valueAt(input, issue.path) === undefined;
  switch (issue.code) {
    case 'invalid_type':
      if (missing) return `${field} is required`;
      return `${field} must be ${article(TYPE_NAMES[issue.expected] ?? issue.expected)}`;
    case 'invalid_format':
      return `${field} must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${field} must not be empty`;
      if (issue.origin === 'array') return `${field} must have at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') return `${field} must be at least ${issue.minimum} characters`;
      return `${field} must be ${issue.inclusive ? 'at least' : 'greater than'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `${field} must have at most ${issue.maximum} item(s)`;
      if (issue.origin === 'string') return `${field} must be at most ${issue.maximum} characters`;
      return `${field} must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'invalid_value':
      if (missing) return `${field} is required`;
      return `${field} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `${field} has unknown field(s): ${issue.keys.join(', ')}`;
    case 'invalid_union': {
      // A discriminated union names its discriminator's values: the body's `type`, say.
      if ('options' in issue && Array.isArray(issue.options))
        return missing ? `${field} is required` : `${field} must be one of: ${issue.options.map(String).join(', ')}`;
      const first = issue.errors.find((branch) => branch.length > 0)?.[0];
      return first ? describeIssue({ ...first, path: [...issue.path, ...first.path] } as Issue, input) : `${field} is invalid`;
    }
    default:
      return `${field}: ${issue.message}`;
  }
}

export function describeError(error: z.ZodError, input: unknown): string {
  return error.issues.map((i) => describeIssue(i, input)).join('; ');
}

/** A ValidationError carrying every issue's sentence and the first issue's field path. */
export function validationErrorFrom(error: z.ZodError, input: unknown): ValidationError {
  const first = error.issues[0];
  return new ValidationError(describeError(error, input), first ? formatPath(first.path) : undefined);
}

const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * The path of the first string (or key) holding a lone surrogate, or undefined. Stored as UTF-8 such a string
 * becomes U+FFFD, so two ids would become one, and encodeURIComponent throws on it.
 */
export function illFormedAt(value: unknown, path: PathKey[] = []): string | undefined {
  if (typeof value === 'string') return isWellFormed(value) ? undefined : formatPath(path) || 'body';
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedAt(value[i], [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isWellFormed(key)) return formatPath([...path, key]);
    const found = illFormedAt(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Refuses a value holding ill-formed Unicode with a ValidationError naming the field (see illFormedAt). */
export function checkWellFormed(value: unknown, path: PathKey[] = []): void {
  const field = illFormedAt(value, path);
  if (field !== undefined) throw new ValidationError(`${field} must be well-formed Unicode: it holds a lone surrogate`, field);
}
