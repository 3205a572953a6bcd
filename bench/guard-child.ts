/**
 * One engine of the CI guard's A/B run (bench/guard-ab.ts), in a process of its own under the CPU profiler: the
 * engine of the sources under `root`, warmed up, then a window of saturation each time the parent sends 'window'
 * (answered with the window's phase), closed on 'stop'. Both engines decide the same transactions.
 */
import { rmSync } from 'node:fs';
import { mark } from './cost-mark.js';
import { type Phase, SATURATION, saturate, startEngine } from './cost-engine.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';

export interface GuardChildConfig {
  root: string;
  warmUp: number;
  decisions: number;
}

const config = JSON.parse(process.argv[2]!) as GuardChildConfig;
const { engine, threads, dir } = await startEngine(config.root);
const next = transactionSource(SWITCH_POPULATION, 11, 'COST');
await saturate(engine, config.warmUp, next);
process.on('message', async (message: string) => {
  if (message === 'window') {
    const from = await mark(engine);
    await saturate(engine, config.decisions, next);
    const phase: Phase = { name: SATURATION, from, to: await mark(engine) };
    process.send!(phase);
  } else {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
// A parent that ended (a failed run) leaves no engine running behind it.
process.on('disconnect', () => process.exit(1));
process.send!(threads);
