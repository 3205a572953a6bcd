import { loadConfig } from '../config.js';
import { createEngine, type Engine } from '../engine.js';
import { createLogger } from '../logger.js';

/** A command writes its result to `out` (stdout, machine-readable) and diagnostics to `err` (stderr). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** The CLI talks to the same store as the server (SQLite allows one writer at a time; the server sees CLI events). */
export async function withEngine<T>(work: (engine: Engine) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const engine = await createEngine({
    dataDir: config.dataDir,
    rulesDir: config.rulesDir,
    logger: createLogger(process.env.LOG_LEVEL ?? 'warn'),
    tailIntervalMs: 0,
    watchRules: false,
    // The server keeps the snapshot current; a one-shot command only reads it.
    snapshotEvery: 0,
    auditSigningKey: config.auditSigningKey,
  });
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}
