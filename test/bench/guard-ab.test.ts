import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGET } from '../../bench/budget.js';
import { findBudgetCommit, GUARD_FACTOR, verdict } from '../../bench/guard-ab.js';

const scratch = mkdtempSync(join(tmpdir(), 'guard-ab-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd, encoding: 'utf8' }).trim();

/** A repository of two commits; returns it and the first commit's hash. */
function repository(): { repo: string; first: string } {
  const repo = join(scratch, 'repo');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'a.txt'), 'one');
  git(repo, 'add', 'a.txt');
  git(repo, 'commit', '-qm', 'one');
  const first = git(repo, 'rev-parse', 'HEAD');
  writeFileSync(join(repo, 'a.txt'), 'two');
  git(repo, 'commit', '-qam', 'two');
  return { repo, first };
}

describe('the guard chooses between the A/B run and the absolute figure', () => {
  const { repo, first } = repository();

  it('finds the budget commit in a repository that holds it, as a full hash', () => {
    expect(findBudgetCommit(repo, first.slice(0, 10))).toEqual({ commit: first });
  });

  it('falls back when the commit is not in the repository', () => {
    const found = findBudgetCommit(repo, 'f'.repeat(40));
    expect(found).toEqual({ unavailable: expect.stringContaining(`budget commit ${'f'.repeat(40)} is not in this repository`) });
  });

  it('falls back in a shallow clone that lacks the commit', () => {
    const shallow = join(scratch, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo}`, shallow]);
    expect(findBudgetCommit(shallow, first)).toEqual({ unavailable: expect.stringContaining('not in this repository') });
  });

  it('falls back in a tree that is not a repository of its own (a tarball), even inside another one', () => {
    const tarball = join(scratch, 'tarball');
    mkdirSync(tarball);
    expect(findBudgetCommit(tarball, first)).toEqual({
      unavailable: expect.stringContaining(`${tarball} is not a git repository (git: fatal:`),
    });
    const inside = join(repo, 'unpacked');
    mkdirSync(inside);
    expect(findBudgetCommit(inside, first)).toEqual({ unavailable: `${inside} is not a git repository of its own` });
  });
});

// A full clone must hold the budget commit on its history; a tarball or shallow clone falls back, as tested above.
const root = fileURLToPath(new URL('../..', import.meta.url));
const fullClone = (() => {
  try {
    return git(root, 'rev-parse', '--is-shallow-repository') === 'false';
  } catch {
    return false;
  }
})();

describe('the budget commit', () => {
  it.skipIf(!fullClone)('is a commit of this repository and an ancestor of the tree', () => {
    const found = findBudgetCommit(root, BUDGET.cpuBudgetCommit);
    expect(found).toEqual({ commit: BUDGET.cpuBudgetCommit });
    expect(() => git(root, 'merge-base', '--is-ancestor', BUDGET.cpuBudgetCommit, 'HEAD')).not.toThrow();
  });
});

describe('the verdict', () => {
  it('passes at the guard factor and fails above it; the figure on the budget host is the ratio × the budget', () => {
    expect(verdict(600, 400, 535)).toEqual({ ratio: 1.5, onBudgetHost: 802.5, limit: 802.5, pass: true });
    expect(verdict(601, 400, 535).pass).toBe(false);
  });

  it('does not depend on the host: both trees slower or faster by the same factor give the same verdict', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 50, max: 5_000, noNaN: true }),
        fc.double({ min: 50, max: 5_000, noNaN: true }),
        fc.double({ min: 0.3, max: 3, noNaN: true }),
        (head, base, speed) => {
          fc.pre(Math.abs(head / base - GUARD_FACTOR) > 1e-9);
          expect(verdict(head * speed, base * speed, BUDGET.cpuPerDecisionMicros).pass).toBe(
            verdict(head, base, BUDGET.cpuPerDecisionMicros).pass,
          );
        },
      ),
    );
  });
});
