import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  backtest,
  formatBacktest,
  loadRuleset,
  rulesCheckCommand,
  rulesTestCommand,
  RulesRuntime,
  watchRuleset,
  type StoredDecision,
} from '../../src/rules/index.js';
import { compileText, DECIDE } from './helpers.js';

const DEFAULT_DIR = join(import.meta.dirname, '..', '..', 'rules');
const temps: string[] = [];

async function tempRules(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rules-'));
  temps.push(dir);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
  return dir;
}

afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const RULE = (id: string, when: string, score = 50) => `rule ${id} "t"\n  when ${when}\n  score ${score}\n  reason ${id} low "m"\nend\n`;

describe('rules check', () => {
  it('ends with one OK line on success', async () => {
    const { exitCode, output } = await rulesCheckCommand(DEFAULT_DIR);
    expect(exitCode).toBe(0);
    expect(output).toMatch(/^OK: \d+ rules in 8 files\n$/);
  });

  it('exits 1 with file:line:col errors', async () => {
    const dir = await tempRules({ 'a.rules': `${RULE('A', 'transactionData.amout > 1')}decide\n  otherwise approved\nend\n` });
    const { exitCode, output } = await rulesCheckCommand(dir);
    expect(exitCode).toBe(1);
    expect(output).toBe(`${join(dir, 'a.rules')}:2:8 unknown field transactionData.amout (did you mean transactionData.amount?)\n`);
  });
});

describe('rules test', () => {
  it('runs the default examples like a test runner', async () => {
    const { exitCode, output } = await rulesTestCommand(DEFAULT_DIR);
    expect(exitCode).toBe(0);
    expect(output).toMatch(/\nTests: \d+ passed, \d+ total \(7 files\)\n$/);
  });

  it('reports failing expectations', async () => {
    const dir = await tempRules({
      'a.rules': `${RULE('BIG', 'transactionData.amount > 10')}decide\n  review at 40\n  otherwise approved\nend\n`,
      'a.test.json': JSON.stringify({
        cases: [{ name: 'small', request: { transactionData: { amount: 5 } }, fires: ['BIG'], action: 'review' }],
      }),
    });
    const { exitCode, output } = await rulesTestCommand(dir);
    expect(exitCode).toBe(1);
    expect(output).toContain('✗ a.test.json › small\n    expected BIG to fire\n    expected action review, got approved\n');
    expect(output).toContain('Tests: 1 failed, 0 passed, 1 total (1 files)');
  });
});

describe('rules test coverage', () => {
  it('fails a rule without an example that fires it and one where it does not, as rules/README.md asks', async () => {
    const dir = await tempRules({
      'a.rules': `${RULE('BIG', 'transactionData.amount > 10')}${RULE('HUGE', 'transactionData.amount > 1000')}${RULE('TINY', 'transactionData.amount < 1')}decide\n  review at 40\n  otherwise approved\nend\n`,
      'a.test.json': JSON.stringify({
        cases: [
          { name: 'big', request: { transactionData: { amount: 50 } }, fires: ['BIG'], notFires: ['HUGE', 'TINY'] },
          { name: 'small', request: { transactionData: { amount: 5 } }, notFires: ['BIG'] },
        ],
      }),
    });
    const { exitCode, output } = await rulesTestCommand(dir);
    expect(exitCode).toBe(1);
    expect(output).toContain('Tests: 2 passed, 2 total (1 files)');
    expect(output).toContain('Rules without both examples: 2 of 3\n');
    expect(output).toContain('✗ HUGE (a.rules) lacks an example that fires it (fires)\n');
    expect(output).toContain('✗ TINY (a.rules) lacks an example that fires it (fires)\n');
    expect(output).not.toMatch(/✗ BIG/);
  });

  it('passes once every rule has both', async () => {
    const dir = await tempRules({
      'a.rules': `${RULE('BIG', 'transactionData.amount > 10')}decide\n  review at 40\n  otherwise approved\nend\n`,
      'a.test.json': JSON.stringify({
        cases: [
          { name: 'big', request: { transactionData: { amount: 50 } }, fires: ['BIG'] },
          { name: 'small', request: { transactionData: { amount: 5 } }, notFires: ['BIG'] },
        ],
      }),
    });
    expect(await rulesTestCommand(dir)).toEqual({ exitCode: 0, output: expect.stringMatching(/Tests: 2 passed, 2 total \(1 files\)\n$/) });
  });
});

describe('backtest', () => {
  it('replays decisions in order with rebuilt velocity and reports what changes', async () => {
    const current = compileText(`${RULE('BIG', 'x.a > 100')}decide\n  medium at 40\n  otherwise low\nend\n`);
    const candidate = compileText(`${RULE('BIG', 'x.a > 100')}${RULE('BURST', 'count(by user over 1 hour) >= 3', 40)}${DECIDE}`);
    const live = new RulesRuntime(current);
    const decisions: StoredDecision[] = [0, 1, 2, 3].map((i) => {
      const request = { x: { s: 'u1', a: i === 3 ? 500 : 10 } };
      const decidedAt = new Date(Date.UTC(2024, 0, 1, 12, i)).toISOString();
      const e = live.decide(request, Date.parse(decidedAt));
      return { request, decidedAt, rulesetVersion: e.rulesetVersion, action: e.action.result, fired: e.fired.map((f) => f.id) };
    });
    const report = await backtest(decisions, candidate, { from: decisions[1]!.decidedAt });
    expect(report).toMatchObject({
      decisions: 3,
      changed: 2,
      transitions: { 'low→medium': 1, 'medium→high': 1 },
      ruleHits: { BIG: { current: 1, candidate: 1 }, BURST: { current: 0, candidate: 2 } },
    });
    expect(report.samples['medium→high']).toEqual([
      {
        reference: undefined,
        decidedAt: decisions[3]!.decidedAt,
        currentFired: ['BIG'],
        candidateFired: ['BIG', 'BURST'],
        candidateRiskScore: '90',
      },
    ]);
    const text = formatBacktest(report);
    expect(text).toContain('3 decisions replayed, 2 changed (66.67%)');
    expect(text).toMatch(/BURST\s+0\s+2\s+\+2/);
  });

  it('lets the event loop turn while it replays, so that a long history does not hold the server', async () => {
    const candidate = compileText(`${RULE('BIG', 'x.a > 100')}${RULE('BURST', 'count(by user over 1 hour) >= 3', 40)}${DECIDE}`);
    const decisions: StoredDecision[] = Array.from({ length: 1_000 }, (_, i) => ({
      request: { x: { s: `u${i}`, a: 10 } },
      decidedAt: new Date(Date.UTC(2024, 0, 1) + i * 1_000).toISOString(),
      rulesetVersion: 'v',
      action: 'low',
      fired: [],
    }));
    let turns = 0;
    let done = false;
    const turn = () => {
      if (done) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const report = await backtest(decisions, candidate);
    done = true;
    expect(report.decisions).toBe(1_000);
    // One turn every 200 decisions; replayed in one go, the loop would not have turned at all.
    expect(turns).toBeGreaterThanOrEqual(4);
  });
});

describe('hot reload', () => {
  it('swaps in a valid ruleset and keeps the previous one when the new one fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rules-'));
    temps.push(dir);
    await cp(DEFAULT_DIR, dir, { recursive: true });
    const swaps: string[] = [];
    const errors: string[][] = [];
    const watcher = await watchRuleset(dir, {
      onSwap: (n) => swaps.push(n.version),
      onError: (e) => errors.push([...e]),
      debounceMs: 60_000,
    }); // only explicit reloads here
    try {
      const first = watcher.current();
      await writeFile(join(dir, 'broken.rules'), RULE('BROKEN', 'transactionData.amount > "x"'));
      expect(await watcher.reload()).toBe(false);
      expect(watcher.current()).toBe(first);
      expect(errors.at(-1)).toEqual([`${join(dir, 'broken.rules')}:2:31 cannot compare decimal with string using >`]);

      await writeFile(join(dir, 'broken.rules'), RULE('FIXED', 'transactionData.amount > 1', 1));
      expect(await watcher.reload()).toBe(true);
      expect(watcher.current().rules.map((r) => r.id)).toContain('FIXED');
      expect(swaps).toEqual([watcher.current().version]);
      expect(watcher.current().version).toBe((await loadRuleset(dir)).version);
    } finally {
      watcher.close();
    }
  });

  it('reloads by itself when a file changes', async () => {
    const dir = await tempRules({
      'a.rules': `${RULE('A', 'transactionData.amount > 1')}decide\n  review at 40\n  otherwise approved\nend\n`,
    });
    const watcher = await watchRuleset(dir, { debounceMs: 10 });
    try {
      const swapped = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (watcher.current().rules.some((r) => r.id === 'B')) {
            clearInterval(timer);
            resolve();
          }
        }, 10);
      });
      await writeFile(join(dir, 'b.rules'), RULE('B', 'transactionData.amount > 2'));
      await swapped;
    } finally {
      watcher.close();
    }
  });
});
