// Decisions per second and latency of the default ruleset, in process, no I/O, with velocity and history
// warm for 100k accounts. Each round measures a hand-written JS baseline, evaluate only, and evaluate + record
// on the same requests; the medians over the rounds are printed with their ratio to the baseline, since the
// machine is shared and noisy.
// Run: npx tsx bench/rules.ts [decisions per round] [rounds]; BENCH_ACCOUNTS=20000 for a smaller state (e.g. to profile).
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadRuleset, MemoryLists, RulesRuntime } from '../src/rules/index.js';
import { retainedBytes } from './stats.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100_000);
const WARM_TX_PER_ACCOUNT = 3;
const DECISIONS = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const HOUR = 3_600_000;
const START = Date.UTC(2024, 5, 12, 9);

let seed = 42;
function random(): number {
  // xorshift: deterministic, so runs are comparable.
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4_294_967_296;
}
const pick = (n: number): number => Math.floor(random() * n);

function request(i: number, at: number) {
  const user = pick(ACCOUNTS);
  const amount = Math.round(random() * (random() < 0.05 ? 6_000_000 : 200_000) * 100) / 100;
  return {
    transactionData: {
      reference: `TX-${i}`,
      amount,
      type: 'debit',
      currency: 'NGN',
      balanceBefore: Math.round(random() * 2_000_000),
      transactionDate: new Date(at).toISOString(),
      channel: 'bank transfer',
      narration: random() < 0.01 ? 'usdt p2p' : 'transfer',
      senderAccount: `acct-${user}`,
      receiverAccount: `acct-${pick(ACCOUNTS / 2)}`,
      isExternalPayment: random() < 0.3,
      isStaffAccount: random() < 0.01,
      isDormantAccount: random() < 0.005,
      accountCurrency: 'NGN',
      ...(random() < 0.1 ? { vasReceiver: `080${pick(20_000)}`, vasProvider: 'MTN' } : {}),
    },
    device: { deviceId: `dev-${user}-${pick(2)}`, manufacturer: 'Samsung', name: 'A14', osName: 'Android', osVersion: '13' },
    anonymizedUserData: {
      uniqueId: `user-${user}`,
      country: 'NG',
      businessCategory: 'retail',
      isPhoneNumberVerified: random() > 0.02,
      isBanned: false,
      isIdentityVerified: random() > 0.02,
      dateJoined: '2022-01-01T00:00:00.000Z',
      age: 20 + pick(50),
    },
    location: { latitude: '6.6', longitude: '3.3', country: 'NG' },
    screeningData: { senderName: 'Ada Obi', receiverName: 'Chinedu Okeke' },
    limits: { dailyLimit: 5_000_000, overdraftLimit: 0, individualTransactionLimit: 1_000_000 },
    beneficiary: { isRegisteredBeneficiary: true, isNewBeneficiary: random() < 0.05 },
    ipAddress: `102.89.${pick(256)}.${pick(256)}`,
  };
}
type Request = ReturnType<typeof request>;

// A full collection before reading the heap, so bytes per velocity key are measured rather than estimated.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const retainedAfterGc = () => {
  gc();
  return retainedBytes();
};

interface Result {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Times `decide` on every request (after a short warm-up on the first ones) at `base + times[i]`. */
function measure(
  requests: readonly Request[],
  times: readonly number[],
  base: number,
  decide: (r: Request, now: number) => unknown,
): Result {
  for (let i = 0; i < Math.min(5_000, requests.length); i++) decide(requests[i]!, base + times[i]!);
  const latencies = new Float64Array(requests.length);
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < requests.length; i++) {
    const s = process.hrtime.bigint();
    sink += decide(requests[i]!, base + times[i]!) ? 1 : 0;
    latencies[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (sink < 0) console.log(sink);
  latencies.sort();
  return { perSecond: requests.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(name: string, results: readonly Result[], baseline?: readonly Result[]): void {
  const perSecond = median(results.map((r) => r.perSecond));
  const ratio = baseline ? `   ${(perSecond / median(baseline.map((r) => r.perSecond))).toFixed(3)}x baseline` : '';
  console.log(
    `${name.padEnd(28)} ${Math.round(perSecond).toLocaleString('en').padStart(11)} decisions/s   p50 ${median(results.map((r) => r.p50))
      .toFixed(1)
      .padStart(6)} µs` +
      `   p99 ${median(results.map((r) => r.p99))
        .toFixed(1)
        .padStart(6)} µs${ratio}`,
  );
}

const ruleset = await loadRuleset(join(import.meta.dirname, '..', 'rules'));
const lists = new MemoryLists();
for (let i = 0; i < 1000; i++) {
  lists.add('blacklist.users', `user-bad-${i}`);
  lists.add('blacklist.accounts', `acct-bad-${i}`);
}
const ipCountries = new Map<string, string>();
const runtime = new RulesRuntime(ruleset, { lists, screeningScore: () => 0, ipCountry: (ip) => ipCountries.get(ip) });

const before = retainedAfterGc();
const warmStart = Date.now();
const warmCount = ACCOUNTS * WARM_TX_PER_ACCOUNT;
for (let i = 0; i < warmCount; i++) {
  const at = START - 24 * HOUR + Math.floor((i / warmCount) * 24 * HOUR);
  runtime.record(request(i, at), at);
}
const warmSeconds = (Date.now() - warmStart) / 1000;
const retained = retainedAfterGc();
const heapState = retained.total - before.total;
const buffersState = retained.buffers - before.buffers;
const stats = runtime.velocity.stats();
console.log(`ruleset ${ruleset.version}: ${ruleset.rules.length} rules, ${ruleset.features.length} velocity features`);
console.log(
  `warm-up: ${warmCount.toLocaleString('en')} transactions for ${ACCOUNTS.toLocaleString('en')} accounts in ${warmSeconds.toFixed(1)} s ` +
    `(${Math.round(warmCount / warmSeconds).toLocaleString('en')} records/s); ${stats.keys.toLocaleString('en')} velocity keys; ` +
    `velocity + history state ${Math.round(heapState / 1e6)} MB measured (${Math.round(buffersState / 1e6)} MB of it in array buffers) = ${Math.round(heapState / stats.keys)} bytes per velocity key (estimate ${stats.approxBytesPerKey})`,
);

const requests: Request[] = [];
const times: number[] = [];
for (let i = 0; i < DECISIONS; i++) {
  times.push(START + i * 10);
  requests.push(request(warmCount + i, times[i]!));
}

// Baseline: a hand-written function doing an equivalent handful of checks with JS numbers and Maps
// (blacklists, limits, balance drain, one velocity count and one velocity sum per account).
const blacklist = new Set(Array.from({ length: 1000 }, (_, i) => `user-bad-${i}`));
const counts = new Map<string, number[]>();
function baseline(r: Request, now: number): number {
  const t = r.transactionData;
  let score = 0;
  if (blacklist.has(r.anonymizedUserData.uniqueId) || r.anonymizedUserData.isBanned) return 100;
  if (t.amount > r.limits.individualTransactionLimit) score += 50;
  if (t.amount >= 100_000 && t.balanceBefore > 0 && t.amount >= t.balanceBefore * 0.9) score += 25;
  if (r.anonymizedUserData.isIdentityVerified === false && t.amount >= 50_000) score += 25;
  if (t.amount >= 4_500_000 && t.amount < 5_000_000) score += 20;
  let times = counts.get(t.senderAccount);
  if (!times) counts.set(t.senderAccount, (times = []));
  while (times.length > 0 && times[0]! <= now - HOUR) times.shift();
  times.push(now);
  if (times.length >= 15) score += 30;
  if (times.length * t.amount >= 5_000_000) score += 25;
  return score;
}

// Each round moves the clock on by the span of the requests, so evaluate + record never goes back in time.
const span = times[times.length - 1]! - START + 10;
const rounds: { base: Result; evaluate: Result; decide: Result }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const offset = round * span;
  rounds.push({
    base: measure(requests, times, offset, baseline),
    evaluate: measure(requests, times, offset, (r, now) => runtime.evaluate(r, now).fired.length),
    decide: measure(requests, times, offset, (r, now) => runtime.decide(r, now).fired.length),
  });
}
const base = rounds.map((r) => r.base);
console.log(`\nmedians over ${ROUNDS} rounds of ${DECISIONS.toLocaleString('en')} decisions:`);
report('baseline (hand-written JS)', base);
report(
  'ruleset evaluate',
  rounds.map((r) => r.evaluate),
  base,
);
report(
  'ruleset evaluate + record',
  rounds.map((r) => r.decide),
  base,
);
console.log('goal: ≥ 100,000 decisions/s per core for evaluate');
