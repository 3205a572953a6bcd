// The examples of README.md and docs/: their fenced blocks, which of them the suite runs, and how a printed answer
// is compared with the documented one. docs/README.md says how a page marks a block it does not run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** The line right before a block's opening fence that marks it as an illustration, not run by the suite. */
export const ILLUSTRATION = '<!-- illustration -->';
/** The line before a block that test/audit/walk-through.test.ts runs as written, with a server and a witness. */
const WALK_THROUGH = /^<!-- walk-through: [\w -]+ -->$/;

export interface Block {
  file: string;
  /** The line of the opening fence, from 1; the block's text runs to the closing fence, `end` (from 1). */
  line: number;
  end: number;
  lang: string;
  code: string;
  illustration: boolean;
  /** Run as written by a test of its own (docs/audit.md's walk-through), not by test/docs.test.ts. */
  runElsewhere: boolean;
  /** The documented answer: the json or text block that follows, with at most a few lines of prose between. */
  answer?: Block;
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const SCRIPT = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);
const ANSWER = new Set(['json', 'text', '']);

export type Kind = 'curl' | 'module' | 'shell' | 'typescript' | 'data';

/** What the suite does with a block: curl blocks against a server, ES modules against the packed package. */
export function kindOf(block: Block): Kind {
  if (SHELL.has(block.lang)) return commandsOf(block.code).every((c) => /^(curl|export|until curl) /.test(c)) ? 'curl' : 'shell';
  if (block.lang === 'ts' || block.lang === 'typescript') return 'typescript';
  if (SCRIPT.has(block.lang)) return 'module';
  return 'data';
}

/** The commands of a shell block: continuation lines and lines inside a quoted argument joined, comments dropped. */
export function commandsOf(code: string): string[] {
  const commands: string[] = [];
  let current = '';
  for (const line of code.split('\n')) {
    current = current === '' ? line.trim() : `${current}\n${line}`;
    const open = (current.match(/'/g) ?? []).length % 2 === 1;
    if (open || current.endsWith('\\')) continue;
    if (current !== '' && !current.startsWith('#')) commands.push(current);
    current = '';
  }
  if (current !== '') commands.push(current);
  return commands;
}

export function blocksOf(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let gap = 0;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.trim() !== '') gap++;
      if (/^#/.test(lines[i]!)) gap = Number.POSITIVE_INFINITY;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const block: Block = {
      file,
      line: start + 1,
      end: i + 1,
      lang: open[1]!.toLowerCase(),
      code: `${body.join('\n')}\n`,
      illustration: lines[before]?.trim() === ILLUSTRATION,
      runElsewhere: WALK_THROUGH.test(lines[before]?.trim() ?? ''),
    };
    const previous = blocks[blocks.length - 1];
    const previousGap = gap;
    gap = 0;
    if (previous && ANSWER.has(block.lang) && !block.illustration && previousGap <= 3 && kindOf(previous) !== 'data' && !previous.answer) {
      previous.answer = block;
      continue;
    }
    blocks.push(block);
  }
  return blocks;
}

/** README.md and every page under docs/, as the reader meets them. */
export function docPages(root: string): string[] {
  const pages = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      if (name.isDirectory()) walk(join(dir, name.name));
      else if (name.name.endsWith('.md')) pages.push(join(dir, name.name));
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return pages;
}

export const pageBlocks = (root: string): Block[] =>
  docPages(root).flatMap((path) => blocksOf(relative(root, path), readFileSync(path, 'utf8')));

/** Values that differ from run to run, each with what stands in for it. */
const hex = (shape: string) => new RegExp(`(?<![0-9a-f])${shape}(?![0-9a-f])`, 'g');
const VARYING: [RegExp, string][] = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g, '<time>'],
  [hex('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'), '<id>'],
  [hex('[0-9a-f]{64}'), '<hash>'],
  [hex('[0-9a-f]{8}-[0-9a-f]{16}'), '<id>'],
  [hex('[0-9a-f]{24}'), '<id>'],
  [/\b(ck|cs|whsec)_[A-Za-z0-9_+/=-]{20,}/g, '<$1>'],
  [/([?&](?:expires|sig)=)[^&"'\s]+/g, '$1<sig>'],
];

export const maskText = (text: string): string => VARYING.reduce((out, [re, to]) => out.replace(re, to), text);

/** The answer with what varies masked: a string's ids and times, and the numbers under keys that count the log. */
export function masked(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return maskText(value);
  if (typeof value === 'number' && /^(eventsHead|expires|position|globalPosition|treeSize|size)$/.test(key)) return '<n>';
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

/**
 * Whether the printed answer is the documented one, what varies masked. Each documented value that differs from the
 * printed one only in what varies is bound to it, so later commands that name it (a case id) use the printed one.
 */
export function compareAnswer(documented: string, printed: string, bindings: Map<string, string>): string | undefined {
  let doc: unknown;
  let got: unknown;
  try {
    doc = JSON.parse(documented);
  } catch {
    doc = documented.trim();
  }
  try {
    got = typeof doc === 'string' ? printed.trim() : JSON.parse(printed);
  } catch {
    return `printed no JSON: ${printed.slice(0, 300)}`;
  }
  bind(doc, got, bindings);
  if (typeof doc === 'string' && typeof got === 'string') return maskText(doc) === maskText(got) ? undefined : `printed ${got}`;
  return isDeepStrictEqual(masked(doc), masked(got)) ? undefined : `printed ${JSON.stringify(got)}`;
}

function bind(doc: unknown, got: unknown, bindings: Map<string, string>): void {
  if (typeof doc === 'string' && typeof got === 'string') {
    if (doc !== got && doc.length >= 8 && maskText(doc) === maskText(got)) bindings.set(doc, got);
    return;
  }
  if (typeof doc === 'number' && typeof got === 'number' && doc !== got && doc >= 1e6) bindings.set(String(doc), String(got));
  if (Array.isArray(doc) && Array.isArray(got)) for (const [i, d] of doc.entries()) bind(d, got[i], bindings);
  else if (doc && got && typeof doc === 'object' && typeof got === 'object')
    for (const [k, v] of Object.entries(doc)) bind(v, (got as Record<string, unknown>)[k], bindings);
}

/** The text with every bound documented value replaced by its printed one, longest first. */
export function substitute(text: string, bindings: Map<string, string>): string {
  let out = text;
  for (const [from, to] of [...bindings].sort((a, b) => b[0].length - a[0].length)) out = out.split(from).join(to);
  return out;
}

/** The printed answer in the documented one's layout: one line if it was one line, else indented by two. */
export function asDocumented(documented: string, printed: string): string {
  try {
    const value = JSON.parse(printed);
    return documented.trim().includes('\n') ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  } catch {
    return printed.trim();
  }
}

/** The page with each answer block's text replaced (DOCS_UPDATE=1 writes the printed answers into the pages). */
export function withAnswers(text: string, answers: { block: Block; text: string }[]): string {
  const lines = text.split('\n');
  for (const { block, text: answer } of [...answers].sort((a, b) => b.block.line - a.block.line))
    lines.splice(block.line, block.end - block.line - 1, ...answer.split('\n'));
  return lines.join('\n');
}
