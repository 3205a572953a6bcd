// Keeps the documentation true to the tree: a short front page, links and anchors that resolve, paths and npm
// scripts that exist, and no history (history lives in git).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const markdownFiles = (): string[] => {
  const found = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  for (const dir of ['docs', 'src', 'rules', 'bench', 'test', 'grammar']) if (existsSync(join(ROOT, dir))) walk(join(ROOT, dir));
  return found;
};

/** The text outside fenced code blocks: what a reader sees as prose and links. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
const anchorsOf = (text: string): Set<string> => {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
};

const links = (text: string): string[] =>
  [...prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));

describe('documentation', () => {
  const files = markdownFiles();

  it('keeps the README a front page of at most 15 KB', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(15 * 1024);
  });

  it('has every relative link point to an existing file, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of links(readFileSync(file, 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)} → ${link}`;
        if (!existsSync(target)) broken.push(`${where}: no such file`);
        else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only paths of the tree and npm scripts of package.json', () => {
    const scripts = new Set(Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts));
    const missing: string[] = [];
    // Bundled third-party data cites paths of the repositories it was copied from.
    for (const file of files.filter((f) => !relative(ROOT, f).split('/').includes('data'))) {
      const text = prose(readFileSync(file, 'utf8'));
      for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) {
        for (const [, script] of code!.matchAll(/\bnpm run (?:-s )?([\w:-]+)/g))
          if (!scripts.has(script!)) missing.push(`${relative(ROOT, file)}: npm script ${script}`);
        const path = /^((?:src|test|bench|rules|grammar|docs|examples)\/[\w./*-]*)$/.exec(code!.split(/[\s,(]/)[0]!)?.[1];
        if (!path) continue;
        const fixed = path.split('*')[0]!.replace(/\.$/, '');
        if (!existsSync(join(ROOT, fixed))) missing.push(`${relative(ROOT, file)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps no history: no session diaries, no dated "until"/"before" notes', () => {
    const diary = [
      /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|this|that|earlier|previous|next|latest|last) session\b/i,
      /\bsessions? (by|of) (session|measured)/i,
      /\b(until|before|since) 20\d\d-\d\d-\d\d\b/i,
      /\bbenchmark log\b/i,
    ];
    const found: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (diary.some((re) => re.test(line))) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it("starts the README's PostgreSQL nodes with a user in the URL and a DATA_DIR each", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const nodes = readme.split('\n').filter((line) => /^DATABASE_URL=postgres:\/\/.*npm start/.test(line));
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    for (const node of nodes) expect(node).toMatch(/^DATABASE_URL=postgres:\/\/[^@/\s]+@/);
    const dataDirs = nodes.map((node) => /\bDATA_DIR=(\S+)/.exec(node)?.[1]);
    expect(dataDirs).not.toContain(undefined);
    expect(new Set(dataDirs).size).toBe(nodes.length);
  });
});
