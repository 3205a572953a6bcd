/**
 * Screening quality as a curve: recall, false-positive and hard-false-positive rates over a threshold sweep, on
 * the evaluation set of the logic-v2 comparison (test/name-matching/evaluation-set.ts), beside logic-v2's
 * figures from that run, and the share of common Nigerian names (test/name-matching/nigerian-names.ts) that hit a
 * sanctions list. Run: npm run bench:screening-quality
 */
import { dataPath } from '../src/name-matching/data-path.js';
import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher, DEFAULT_THRESHOLD } from '../src/name-matching/matcher.js';
import {
  buildHardNegatives,
  buildPositives,
  LOGIC_V2,
  readNegatives,
  readText,
  recallByKind,
  scoreSet,
  sweep,
} from '../test/name-matching/evaluation-set.js';
import { readNigerianNames } from '../test/name-matching/nigerian-names.js';

const lists = await loadEmbeddedLists();
const matcher = createMatcher(lists);
const positives = buildPositives(lists, readText(new URL(`file://${dataPath('un/UN_consolidated.xml')}`)));
const negatives = readNegatives(readText(new URL('../test/fixtures/screening/yente_negatives_us.csv', import.meta.url)), 1000);
const hard = buildHardNegatives(lists, 500);
const common = readNigerianNames();
console.log(
  `set: ${positives.length} listed-person variations, ${negatives.length} synthetic non-listed people, ${hard.length} hard negatives, ${common.length} common Nigerian names`,
);
const started = performance.now();
const scored = scoreSet(matcher, positives, negatives, hard, common);
console.log(`scored in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
const pct2 = (x: number) => `${(x * 100).toFixed(2)}%`.padStart(7);
const rows = sweep(
  scored,
  Array.from({ length: 31 }, (_, i) => 65 + i),
);
console.log('\n| threshold | recall | false positives | hard false positives | common Nigerian names hit |\n|---|---|---|---|---|');
for (const r of rows)
  console.log(`| ${r.threshold} | ${pct(r.recall)} | ${pct2(r.falsePositives)} | ${pct(r.hardFalsePositives)} | ${pct2(r.commonHits)} |`);

const commonAt = (t: number) => scored.common.filter((s) => s >= t).length;
console.log(`\ncommon Nigerian names on a sanctions list (of ${common.length}):`);
for (const t of [DEFAULT_THRESHOLD, 95, 100]) console.log(`  at ${t}: ${commonAt(t)} (${pct2(commonAt(t) / common.length).trim()})`);

console.log(`\nrecall by kind at ${DEFAULT_THRESHOLD}:\n| kind | variations | recall |\n|---|---|---|`);
for (const [kind, k] of recallByKind(scored, DEFAULT_THRESHOLD)) console.log(`| ${kind} | ${k.total} | ${pct(k.hit / k.total)} |`);

const wide = readNegatives(readText(new URL('../test/fixtures/screening/yente_negatives_us.csv', import.meta.url)), 10_000);
const flagged = wide.filter(
  (name) => matcher.screen({ name, threshold: DEFAULT_THRESHOLD, limit: 1, types: ['sanction'] }).sanction.length,
);
console.log(
  `\nfalse positives at ${DEFAULT_THRESHOLD} on 10,000 synthetic non-listed people: ${flagged.length} (${pct2(flagged.length / wide.length)})`,
);

// At each of logic-v2's operating points: our best recall at no more false positives and no more hard false
// positives than logic-v2 had there.
console.log(
  '\n| logic-v2 at | its recall / FP / hard FP | ours: threshold | recall | FP | hard FP | at or above |\n|---|---|---|---|---|---|---|',
);
for (const p of LOGIC_V2) {
  const ok = rows.filter((r) => r.falsePositives <= p.falsePositives && r.hardFalsePositives <= p.hardFalsePositives);
  const best = ok.reduce<(typeof rows)[number] | undefined>((a, r) => (!a || r.recall > a.recall ? r : a), undefined);
  console.log(
    `| ${p.at} | ${pct(p.recall)} / ${pct2(p.falsePositives)} / ${pct(p.hardFalsePositives)} | ${best?.threshold ?? '-'} | ${
      best ? pct(best.recall) : '-'
    } | ${best ? pct2(best.falsePositives) : '-'} | ${best ? pct(best.hardFalsePositives) : '-'} | ${best && best.recall >= p.recall ? 'yes' : 'NO'} |`,
  );
}
