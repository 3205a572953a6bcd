import ExcelJS from 'exceljs';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
const t = performance.now();
const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(readFileSync('/work/shared/data/screening/uk_ofsi_conlist_2025-04/ConList.xlsx')), { sharedStrings: 'cache', worksheets: 'emit', hyperlinks: 'ignore', styles: 'ignore', entries: 'ignore' });
let n = 0;
for await (const ws of reader) for await (const row of ws) { n++; }
console.log('rows', n, 'ms', performance.now() - t);
