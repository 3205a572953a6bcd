import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createEngine, type Engine, type EngineOptions } from '../src/engine.js';

/**
 * The engine of a bench's server child process: a fresh temporary data directory, silent, no background work and no
 * rules watcher; closed and its directory removed when the parent disconnects.
 */
export async function serverEngine(prefix: string, options: Partial<EngineOptions> = {}): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const engine = await createEngine({
    dataDir: dir,
    logger: pino({ level: 'silent' }),
    tailIntervalMs: 0,
    workerIntervalMs: 0,
    watchRules: false,
    ...options,
  });
  process.on('disconnect', () => {
    void engine.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
  return engine;
}
