import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
const lists = loadEmbeddedLists(); const m = createMatcher(lists);
const un = lists.find(l => l.name==='un-sc-consolidated')!;
let n=0;
for (const e of un.entries) for (const a of e.weakAliases ?? []) { if (a.split(' ').length<2) continue; const r = m.screen({name:a, threshold:50}).sanction[0]; if (n++<12) console.log(a, '→', r?.name, r?.confidenceScore, r?.sources.length); }
