import { dataPath } from '../src/name-matching/data-path.js';
import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
import { buildPositives, readNegatives, readText } from '../test/name-matching/evaluation-set.js';
const lists = loadEmbeddedLists(); const m = createMatcher(lists);
const negatives = readNegatives(readText(new URL('../test/fixtures/screening/yente_negatives_us.csv', import.meta.url)), 1000);
for (const n of negatives) { const r = m.screen({name:n, threshold:85, limit:1, types:['sanction']}).sanction[0]; if (r) console.log('FP', n, '→', r.name, r.confidenceScore, r.aliases.slice(0,3)); }
const pos = buildPositives(lists, readText(new URL(`file://${dataPath('un/UN_consolidated.xml')}`)));
for (const p of pos.filter(p => p.kind==='particle-typo' || p.kind==='packed-alias' || p.kind==='transliteration')) { const r = m.screen({name:p.query, threshold:50, limit:100, types:['sanction']}).sanction.find(r => r.sources.some(s=>s._id===p.expectedId)); if (!r || r.confidenceScore<85) console.log('MISS', p.kind, p.query, '→', r?.name, r?.confidenceScore); }
