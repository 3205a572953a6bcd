import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** The one line a run without PostgreSQL prints: how many of its tests were skipped, and why. */
export default class PostgresSkipReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const provided = this.#vitest?.getRootProject().getProvidedContext().postgres;
    if (!provided || provided.available) return;
    let skipped = 0;
    for (const module of modules)
      for (const test of module.children.allTests())
        if (test.fullName.includes('[postgres]') && test.result().state === 'skipped') skipped++;
    if (skipped > 0)
      console.log(
        `\n${skipped} PostgreSQL tests skipped: no server at ${provided.url} (${provided.reason}); CI_REQUIRE_SERVICES=1 fails instead\n`,
      );
  }
}
