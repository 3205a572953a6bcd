import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher } from '../src/name-matching/matcher.js';
const t = performance.now();
const lists = await loadEmbeddedLists();
console.log('load ms', performance.now() - t);
for (const l of lists) console.log(l.name, l.type, l.version, l.publishedAt, l.entries.length);
const uk = lists.find(l => l.name === 'uk-ofsi-consolidated')!;
console.log(JSON.stringify(uk.entries.find(e => /SHEKAU/.test(e.name)), null, 1).slice(0, 1500));
const m = createMatcher(lists);
for (const q of ['Bola Ahmed Tinubu', 'Oluremi Tinubu', "Musa Yar'Adua", 'Abubakar Shekau', 'Vladimir Putin']) {
  const r = m.screen({ name: q });
  console.log(q, '→', JSON.stringify([...r.pep, ...r.sanction].map(x => ({ n: x.name, c: x.confidenceScore, l: x.sources.map(s => s.listName), rel: x.relatedTo, pos: x.positions.slice(0,2).map(p=>p.title+' '+p.startDate+'–'+p.endDate) }))));
}
