import { foldText } from '../src/name-matching/fold.js';
import { readFileSync } from 'node:fs';
for (const l of readFileSync('test/fixtures/screening/nomenklatura_putin_names.txt','utf8').split('\n').filter(Boolean)) if (/[^\x00-\x7f]/.test(l)) console.log(l, ' => ', foldText(l));
