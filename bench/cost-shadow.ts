import { basename } from 'node:path';
import type { Engine } from '../src/engine.js';

export const SHADOW_PHASES = ['in-process, saturation, shadow running', 'in-process, saturation, shadow stopped'] as const;

/**
 * `bench:cost --shadow`: the deciding ruleset deployed in shadow for the decisions' business, saturation while it
 * runs (its evaluation settled inside the phase, so that its CPU counts), then saturation again once it stopped.
 */
export async function shadowPhases(
  engine: Engine,
  phase: (name: string, work: () => Promise<void>) => Promise<void>,
  saturate: () => Promise<void>,
): Promise<void> {
  const actor = { businessId: 'default' };
  const sources = await engine.monitoring.ruleSources();
  const files = Object.fromEntries([
    ...sources.files.map((f) => [basename(f.path), f.text]),
    ...sources.lists.map((l) => [`lists/${basename(l.path)}`, l.text]),
  ]);
  await engine.shadows.deploy(actor, { files, hours: 1 });
  // Its warm-up over the log so far is not the per-decision cost.
  await engine.shadows.settle(actor.businessId);
  await phase(SHADOW_PHASES[0], async () => {
    await saturate();
    await engine.shadows.settle(actor.businessId);
  });
  await engine.shadows.stop(actor);
  await phase(SHADOW_PHASES[1], saturate);
}
