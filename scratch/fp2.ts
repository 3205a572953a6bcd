import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
import { readNegatives, readText } from '../test/name-matching/evaluation-set.js';
const lists = await loadEmbeddedLists(); const m = createMatcher(lists);
const negatives = readNegatives(readText(new URL('../test/fixtures/screening/yente_negatives_us.csv', import.meta.url)), 10000);
let n = 0;
for (const q of negatives) { const r = m.screen({name:q, threshold:85, limit:1, types:['sanction']}).sanction[0]; if (r) { n++; console.log(q, '→', r.name, r.confidenceScore, r.sources.map(s=>s.listName).join('+')); } }
console.log('FP', n);
for (const q of ['Chairman']) console.log(q, JSON.stringify(m.screen({name:q, threshold:50, limit:20}).sanction.map(r=>[r.name,r.confidenceScore])));
