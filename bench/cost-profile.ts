/**
 * Splits the CPU a decision costs into the stages of the instant path, from the V8 CPU profiles that `--cpu-prof`
 * writes for each thread of a process. Each sample is charged to the deepest frame of the engine's own sources
 * (src/) on its stack, whose file names the stage: a SQLite call made by a read model's projection is the read
 * model's, a JSON.stringify made while appending is the event encoding's. Samples with no engine frame are charged
 * to the library at the leaf (Node's HTTP server, Hono), or left unattributed. The shares are then scaled to the
 * thread's CPU time measured from /proc over the same window, so the table adds up to what the thread spent.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The stages, in the order a decision passes them; the table prints them in this order. */
export const STAGES = [
  'HTTP server (Node http, Hono)',
  'auth and rate limits',
  'request parsing and validation',
  'decision pipeline and idempotency',
  'features, rules and state',
  'screening (receiver and sender names)',
  'alert and case grouping',
  'event encoding and hashing',
  'log write (events rows, commit)',
  'read models (inline and deferred)',
  'webhooks and events out',
  'metrics and logging',
  'other engine code',
  'GC on the thread',
  'V8 and native, unattributed',
] as const;
export type Stage = (typeof STAGES)[number];

/** The engine's files by stage: the first pattern that matches a source path names its stage. */
const SOURCE_STAGES: [RegExp, Stage][] = [
  [
    /\/src\/(monitoring\/request-schema|fast-schema|validation-messages|http\/(json-body-handler|validation|schemas))/,
    'request parsing and validation',
  ],
  [/\/src\/(auth\/|rate-limits|http\/(middleware\/|fair-gate))/, 'auth and rate limits'],
  [/\/src\/(screening|name-matching)\//, 'screening (receiver and sender names)'],
  [
    /\/src\/(projections\/|store\/deferred|monitoring\/(projection|decision-index)|cases\/(projection|read-model|summaries)|reports\/decision-days|[a-z-]+\/([a-z-]+\/)?[a-z-]*projection)/,
    'read models (inline and deferred)',
  ],
  [/\/src\/cases\//, 'alert and case grouping'],
  [/\/src\/webhooks\//, 'webhooks and events out'],
  [/\/src\/(metrics|logger)/, 'metrics and logging'],
  [/\/src\/(digest|store\/(hash|rows|batch|upcasters|event-store)|monitoring\/compact-decision)/, 'event encoding and hashing'],
  [/\/src\/store\//, 'log write (events rows, commit)'],
  [/\/src\/(rules\/|monitoring\/(features|state|business-state|decision\.|deciders|snapshot))/, 'features, rules and state'],
  [/\/src\/monitoring\//, 'decision pipeline and idempotency'],
  [/\/src\/http\//, 'HTTP server (Node http, Hono)'],
  [/\/src\//, 'other engine code'],
];

/** Engine files whose frames take the stage of their caller, when they have one. */
const SHARED_WRITES = /\/src\/store\/backend\./;

/** Libraries whose own frames name a stage when no engine frame is on the stack. */
const LIBRARY_STAGES: [RegExp, Stage][] = [
  [
    /node_modules\/(hono|@hono)\/|^node:(_http|net|internal\/(http|streams|stream_base|js_stream)|http|stream|events|buffer)/,
    'HTTP server (Node http, Hono)',
  ],
  [/node_modules\/(prom-client|pino|sonic-boom)\//, 'metrics and logging'],
  [/node_modules\/hono-rate-limiter\//, 'auth and rate limits'],
];

const match = (table: [RegExp, Stage][], url: string): Stage | undefined => table.find(([pattern]) => pattern.test(url))?.[1];

/** Each node's stage: the deepest engine frame from the root to it, else the deepest library frame that names one. */
function stagesOf(profile: CpuProfile): Map<number, Stage | 'idle'> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const stages = new Map<number, Stage | 'idle'>();
  const walk = (id: number, source: Stage | undefined, library: Stage | undefined) => {
    const node = byId.get(id)!;
    const { functionName, url } = node.callFrame;
    const engine = url.includes('/src/') && !url.includes('/node_modules/');
    // insertAll runs the statements of whoever calls it: a read model's rows are the read model's.
    const here = engine ? ((SHARED_WRITES.test(url) ? source : undefined) ?? match(SOURCE_STAGES, url)) : undefined;
    const lib = here ? undefined : match(LIBRARY_STAGES, url);
    const s = here ?? source;
    const l = lib ?? library;
    let stage: Stage | 'idle';
    if (functionName === '(idle)') stage = 'idle';
    else if (functionName === '(garbage collector)') stage = 'GC on the thread';
    else stage = s ?? l ?? 'V8 and native, unattributed';
    stages.set(id, stage);
    for (const child of node.children ?? []) walk(child, s, l);
  };
  const root = profile.nodes[0]!;
  walk(root.id, undefined, undefined);
  return stages;
}

/** Samples per stage taken between `from` and `to` (microseconds of the monotonic clock the profiles use). */
export function samplesByStage(profile: CpuProfile, from: number, to: number): Map<Stage, number> {
  const stages = stagesOf(profile);
  const counts = new Map<Stage, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const stage = stages.get(profile.samples[i]!)!;
    if (stage !== 'idle') counts.set(stage, (counts.get(stage) ?? 0) + 1);
  }
  return counts;
}

export interface ThreadProfiles {
  main: CpuProfile;
  /** The store's writer thread, when the log is written on one. */
  writer?: CpuProfile;
  /** The deciding threads (DECISION_THREADS), in no particular order. */
  deciding: CpuProfile[];
}

/**
 * Threads run their entry's bundle (dist/threads/, src/threads.ts), whose frames name the bundle's file. esbuild
 * heads each module's code in a bundle with a `// src/…` or `// node_modules/…` line: a frame's source is the last
 * one above its line. A package's head counts too, or Kysely's code, bundled after src/store/database.ts, would
 * charge every read model's SQL to the log write.
 */
const bundleSources = new Map<string, { line: number; path: string }[]>();
function sourceOf(url: string, line: number): string {
  let heads = bundleSources.get(url);
  if (!heads) {
    heads = [];
    const lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++)
      if (/^\/\/ (src|node_modules)\//.test(lines[i]!)) heads.push({ line: i, path: lines[i]!.slice(3) });
    bundleSources.set(url, heads);
  }
  const head = heads.findLast((h) => h.line <= line);
  return head ? url.replace(/dist\/threads\/[^/]+$/, head.path) : url;
}

/** The profiles `--cpu-prof` wrote into `dir` for one process: its main thread's, its writer thread's, its deciding threads'. */
export function readProfiles(dir: string): ThreadProfiles {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const parse = (f: string) => {
    const profile = JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile;
    for (const { callFrame } of profile.nodes)
      if (callFrame.url.includes('/dist/threads/')) callFrame.url = sourceOf(callFrame.url, callFrame.lineNumber);
    return profile;
  };
  // File names end with the Node thread id and a sequence number: thread 0 is the main thread.
  const main = files.find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (!main) throw new Error(`no main-thread CPU profile in ${dir}`);
  const others = files.filter((f) => f !== main).map(parse);
  const running = (p: CpuProfile, module: string) => p.nodes.some((n) => n.callFrame.url.includes(module));
  const writer = others.find((p) => running(p, '/src/store/writer-thread'));
  const deciding = others.filter((p) => running(p, '/src/monitoring/deciding-thread'));
  return { main: parse(main), writer, deciding };
}

/** µs per decision by stage: the thread's measured CPU per decision, split in the proportions of its samples. */
export function splitCpu(counts: Map<Stage, number>, cpuPerDecision: number): Map<Stage, number> {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return new Map([...counts].map(([stage, n]) => [stage, total > 0 ? (cpuPerDecision * n) / total : 0]));
}

/** The `n` functions with most samples of their own between `from` and `to`, as `share  function  file:line`. */
export function topFunctions(profile: CpuProfile, from: number, to: number, n: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const { functionName, url } = byId.get(profile.samples[i]!)!.callFrame;
    if (functionName === '(idle)') continue;
    const key = `${functionName || '(anonymous)'}  ${url.replace(/^.*\/(src|node_modules)\//, '$1/')}`;
    self.set(key, (self.get(key) ?? 0) + 1);
    total++;
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, count]) => `${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}`);
}
