import anyAscii from 'any-ascii';
import { readFileSync } from 'node:fs';
for (const l of readFileSync('test/fixtures/screening/nomenklatura_putin_names.txt','utf8').split('\n').filter(Boolean)) console.log(l, ' => ', anyAscii(l));
