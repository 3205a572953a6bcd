import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** How many files the end of a run names. */
const SHOWN = 10;

/**
 * The ten slowest test files at the end of each run, with the run's wall time: where the minutes of `npm test` go,
 * so a file that grows slow is seen the day it does (test/support/sequencer.ts starts the longest first).
 */
export default class SlowestFilesReporter implements Reporter {
  #vitest: Vitest | undefined;
  #started = 0;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
    this.#started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const root = this.#vitest?.config.root ?? process.cwd();
    const timed = modules
      .map((module) => ({ file: relative(root, module.moduleId), ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    if (timed.length === 0) return;
    const wall = (performance.now() - this.#started) / 1000;
    const lines = timed.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    console.log(`\nSlowest test files (of ${modules.length}; run ${wall.toFixed(0)} s wall):\n${lines.join('\n')}\n`);
  }
}
