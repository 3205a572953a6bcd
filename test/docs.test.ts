// Keeps the documentation true to the tree: a short front page, links and anchors that resolve, paths and npm
// scripts that exist, no history (history lives in git), and examples that run: every curl block of a page against
// a fresh server, in order, its printed answer compared with the documented one (the JavaScript blocks run in
// test/package.test.ts, against the packed package).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asDocumented,
  type Block,
  compareAnswer,
  ILLUSTRATION,
  kindOf,
  pageBlocks,
  substitute,
  withAnswers,
} from './support/doc-blocks.js';
import { tempDir } from './helpers.js';

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

const run = promisify(execFile);

describe('examples', () => {
  const blocks = pageBlocks(ROOT);

  it(`runs every shell, curl and JavaScript block, or it is marked ${ILLUSTRATION}`, () => {
    const unmarked = blocks
      .filter((b) => !b.illustration && !b.runElsewhere && (kindOf(b) === 'shell' || kindOf(b) === 'typescript'))
      .map((b) => `${b.file}:${b.line} (${b.lang}): run it as curl or JavaScript, or mark it`);
    expect(unmarked).toEqual([]);
  });

  const pages = [...new Set(blocks.filter((b) => kindOf(b) === 'curl' && !b.illustration && !b.runElsewhere).map((b) => b.file))];
  describe.each(pages)('curl blocks of %s, against a fresh server', (page) => {
    let dir: ReturnType<typeof tempDir>;
    let server: ReturnType<typeof spawn>;
    let base: string;
    beforeAll(async () => {
      dir = tempDir('ce-docs-');
      // The upload example sends this file.
      writeFileSync(join(dir.path, 'statement.pdf'), '%PDF-1.4\n% a bank statement\n');
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        stdio: 'ignore',
        env: {
          ...process.env,
          PORT: String(port),
          DATA_DIR: join(dir.path, 'data'),
          LOG_LEVEL: 'silent',
          BOOTSTRAP_API_KEY: 'ck_docs_example_key_0123456789abcdef',
          BOOTSTRAP_API_SECRET: 'cs_docs_example_secret_0123456789abcdef',
        },
      });
      for (
        let i = 0;
        i < 600 &&
        !(await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      )
        await sleep(250);
    }, 180_000);
    afterAll(async () => {
      server?.kill('SIGTERM');
      await new Promise((done) => server?.once('exit', done));
      dir?.remove();
    });

    it('answers each as documented', async () => {
      const bindings = new Map<string, string>();
      const exports: string[] = [];
      const drifts: string[] = [];
      const printed: { block: Block; text: string }[] = [];
      for (const block of blocks.filter((b) => b.file === page && kindOf(b) === 'curl' && !b.illustration && !b.runElsewhere)) {
        const code = substitute(block.code, bindings).replaceAll('http://localhost:8080', base);
        const { stdout } = await run('bash', ['-c', [...exports, code].join('\n')], { cwd: dir.path, maxBuffer: 64 << 20 });
        // The server names itself by the port it runs on; the pages by the default one.
        const answer = stdout
          .replaceAll(base.replace('127.0.0.1', 'localhost'), 'http://localhost:8080')
          .replaceAll(base, 'http://localhost:8080');
        exports.push(...block.code.split('\n').filter((l) => l.startsWith('export ')));
        if (!block.answer) continue;
        const drift = compareAnswer(block.answer.code, answer, bindings);
        if (drift) drifts.push(`${where(block)}: ${drift}`);
        if (drift) printed.push({ block: block.answer, text: asDocumented(block.answer.code, answer) });
      }
      if (process.env.DOCS_UPDATE === '1' && printed.length > 0) {
        const path = join(ROOT, page);
        // The page's commands and prose then name the ids of the answers written.
        writeFileSync(path, substitute(withAnswers(readFileSync(path, 'utf8'), printed), bindings));
      }
      expect(drifts).toEqual([]);
    }, 300_000);
  });
});

const where = (block: Block) => `${block.file}:${block.line}`;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
