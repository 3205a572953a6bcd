import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
import { readFileSync } from 'node:fs';
const m = createMatcher(await loadEmbeddedLists());
const names = readFileSync('test/fixtures/screening/nomenklatura_putin_names.txt','utf8').split('\n').filter(Boolean);
for (const n of names) { const r = m.screen({name:n, threshold: 50, limit: 50}).sanction.find(r => r.name.startsWith('PUTIN, Vladimir')); if (!r || r.confidenceScore < 85) console.log('MISS', n, r?.confidenceScore, r?.searchScore); }
