import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
import { readFileSync } from 'node:fs';
const m = createMatcher(loadEmbeddedLists());
const show = (q: string) => { const r = m.screen({ name: q, threshold: 50, limit: 3 }); console.log(q, '→', [...r.sanction, ...r.pep].map(x => `${x.name} [${x.sources.map(s=>s.listName).join('+')}] ${x.confidenceScore}`).join(' | ')); };
for (const q of ['ABOULAYE HISSENE','YU-RO, HAN',"SA'D BINSA'D MUHAMMAD SHIRYAN AL-KA'BI","Sa'd bin Sa'd Muhammad Shiryan al-Ka'bi",'MOHAMMAD AL-TIKRITI','ADB-AL-TAWWAB MULLAH HUWAYSH','Morteza Saferi','Mortaza Safari', 'Ted Kaczynski']) show(q);
const names = readFileSync('test/fixtures/screening/nomenklatura_putin_names.txt','utf8').split('\n').filter(Boolean);
const miss = names.filter(n => !m.screen({name:n}).sanction.some(r => r.name.startsWith('PUTIN, Vladimir')));
console.log('putin found', names.length - miss.length, 'missing', miss);
