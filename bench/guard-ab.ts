/**
 * The CI guard as an A/B measurement (`npm run bench:cost -- --guard`, issue #46). The host CI runs on changes speed
 * by 1.6–1.8× between days, so an absolute µs budget would fail a healthy tree on a slow day and let a dearer
 * decision through on a fast one. Instead the engine of the commit the budget was measured on
 * (`BUDGET.cpuBudgetCommit`) and this tree's engine run side by side, each in a child process of its own, in
 * alternate windows of one run; this tree fails when its CPU per decision is over GUARD_FACTOR × the budget
 * commit's. The ratio carries over to the day the budget was measured: this tree's figure on that day's host is
 * the ratio × the budget.
 *
 * The budget commit's tree is exported with `git archive` into a temporary directory (no worktree is registered),
 * given this tree's node_modules by a symlink, and prepared as `npm ci` prepares a clone (`npm run prepare`: its
 * grammar and thread bundles). This tree's harness drives both trees' src/ (bench/cost-engine.ts), so a change to
 * the harness never shows as a change of the decision's cost. Without git, or without the commit (a tarball, a
 * shallow clone), the guard judges the absolute figure against the budget instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUDGET } from './budget.js';
import { type ChildThreads, type Phase, profiledChild, THIS_TREE } from './cost-engine.js';
import { readProfiles, type ThreadProfiles } from './cost-profile.js';
import type { GuardChildConfig } from './guard-child.js';

/** The most CPU per decision a tree may cost against the budget commit's, measured in the same run. */
export const GUARD_FACTOR = 1.5;
/** Three windows an engine, alternated so that a drift of the host's speed weighs on both alike. */
const ORDER = ['base', 'head', 'head', 'base', 'base', 'head'] as const;
const CHILD: GuardChildConfig = { root: '', warmUp: 2_000, decisions: 3_000 };
const CHILD_ENTRY = fileURLToPath(new URL('guard-child.ts', import.meta.url));

/** The budget commit as a full hash when `repo` is a git repository holding it; else why the guard cannot use it. */
export function findBudgetCommit(repo: string, commit: string): { commit: string } | { unavailable: string } {
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  const top = git('rev-parse', '--show-toplevel');
  if (top.error) return { unavailable: `git is not available (${top.error.message})` };
  if (top.status !== 0) return { unavailable: `${repo} is not a git repository (git: ${top.stderr.trim().split('\n')[0]})` };
  // A tarball unpacked inside some other repository.
  if (realpathSync(top.stdout.trim()) !== realpathSync(repo)) return { unavailable: `${repo} is not a git repository of its own` };
  const found = git('rev-parse', '--verify', '--quiet', `${commit}^{commit}`);
  if (found.status !== 0) return { unavailable: `the budget commit ${commit} is not in this repository (a shallow clone?)` };
  return { commit: found.stdout.trim() };
}

/** The budget commit's tree written into `root`, ready to run from its sources. */
function budgetTree(root: string, repo: string, commit: string): void {
  const tar = join(root, 'tree.tar');
  execFileSync('git', ['-C', repo, 'archive', '--format=tar', '-o', tar, commit]);
  execFileSync('tar', ['-xf', tar, '-C', root]);
  rmSync(tar);
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  execFileSync('npm', ['run', '--silent', 'prepare'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** What a child sends next, or a failure when it exits first (a budget tree this harness cannot drive, say). */
function reply<T>(c: ReturnType<typeof profiledChild>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    c.process.once('message', (m) => resolve(m as T));
    void c.exited.then(() => reject(new Error(`bench:cost guard: the ${what} engine's process ended before answering`)));
  });
}

interface Run {
  phases: Phase[];
  threads: ChildThreads;
  profiles: ThreadProfiles;
}

/** Both engines' windows, alternated in ORDER; each child's profiles once it has ended. */
async function alternate(roots: { base: string; head: string }): Promise<{ base: Run; head: Run }> {
  const start = async (which: 'base' | 'head') => {
    const c = profiledChild(CHILD_ENTRY, [JSON.stringify({ ...CHILD, root: roots[which] })]);
    return { c, threads: await reply<ChildThreads>(c, which), phases: [] as Phase[] };
  };
  // Started and warmed up side by side, which is not measured: it only shortens CI's run.
  const [base, head] = await Promise.all([start('base'), start('head')]);
  const children = { base, head };
  for (const which of ORDER) {
    const { c, phases } = children[which];
    const answer = reply<Phase>(c, which);
    c.process.send('window');
    phases.push(await answer);
  }
  const end = async ({ c, threads, phases }: Awaited<ReturnType<typeof start>>): Promise<Run> => {
    c.process.send('stop');
    await c.exited;
    const profiles = readProfiles(c.profiles);
    rmSync(c.profiles, { recursive: true, force: true });
    return { phases, threads, profiles };
  };
  return { base: await end(children.base), head: await end(children.head) };
}

export interface Verdict {
  /** This tree's CPU per decision over the budget commit's, in the same run. */
  ratio: number;
  /** This tree's CPU per decision on the host of the day the budget was measured: the ratio × the budget. */
  onBudgetHost: number;
  limit: number;
  pass: boolean;
}

export function verdict(head: number, base: number, budgetMicros: number): Verdict {
  const ratio = head / base;
  return { ratio, onBudgetHost: ratio * budgetMicros, limit: GUARD_FACTOR * budgetMicros, pass: ratio <= GUARD_FACTOR };
}

const cheapest = <C extends { total: number }>(costs: C[]): C => costs.reduce((a, b) => (b.total < a.total ? b : a));
const windows = (costs: { total: number }[]) => costs.map((c) => `${c.total.toFixed(0)} µs`).join(', ');

/**
 * Runs the A/B guard and prints this tree's stage table, both trees' windows, their ratio and the verdict; 'pass' or
 * 'fail', or 'absolute' (said in one line) when the budget commit is unavailable and the caller judges the absolute figure.
 */
export async function guardAB<C extends { total: number }>(report: {
  costOf: (phase: Phase, threads: ChildThreads, profiles: ThreadProfiles) => C;
  printCost: (cost: C) => void;
}): Promise<'pass' | 'fail' | 'absolute'> {
  const found = findBudgetCommit(THIS_TREE, BUDGET.cpuBudgetCommit);
  if ('unavailable' in found) {
    console.log(`bench:cost guard: ${found.unavailable}; judging the absolute CPU per decision against the budget instead`);
    return 'absolute';
  }
  const base = mkdtempSync(join(tmpdir(), 'bench-guard-base-'));
  let runs: Awaited<ReturnType<typeof alternate>>;
  try {
    budgetTree(base, THIS_TREE, found.commit);
    runs = await alternate({ base, head: THIS_TREE });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const costs = (run: Run) => run.phases.map((phase) => report.costOf(phase, run.threads, run.profiles));
  const head = costs(runs.head);
  const budgetCommit = costs(runs.base);
  const h = cheapest(head);
  const b = cheapest(budgetCommit);
  report.printCost(h);
  const short = found.commit.slice(0, 7);
  console.log(`\nthis tree, each window: ${windows(head)}; the table is the cheapest's`);
  console.log(`budget commit ${short}, each window: ${windows(budgetCommit)}; alternated with this tree's in one run`);
  const v = verdict(h.total, b.total, BUDGET.cpuPerDecisionMicros);
  console.log(
    `\nthis tree / budget commit ${short}, cheapest windows: ${h.total.toFixed(0)} / ${b.total.toFixed(0)} µs = ${v.ratio.toFixed(2)} (guard at ${GUARD_FACTOR}×)`,
  );
  console.log(
    `on the budget's host: ${v.onBudgetHost.toFixed(0)} µs per decision against the budget of ${BUDGET.cpuPerDecisionMicros} µs (limit ${v.limit.toFixed(0)} µs)`,
  );
  console.log(
    `for information, this tree on today's host: ${h.total.toFixed(0)} µs against the same limit, which is the budget's host's; aim ${BUDGET.cpuPerDecisionAimMicros} µs`,
  );
  if (!v.pass)
    console.error(`bench:cost guard: this tree costs ${v.ratio.toFixed(2)}× the budget commit's CPU per decision, over ${GUARD_FACTOR}×`);
  return v.pass ? 'pass' : 'fail';
}
