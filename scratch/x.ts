import ExcelJS from 'exceljs';
const wb = new ExcelJS.Workbook();
const t = performance.now();
await wb.xlsx.readFile('/work/shared/data/screening/uk_ofsi_conlist_2025-04/ConList.xlsx');
console.log('read ms', performance.now() - t);
const ws = wb.worksheets[0]!;
console.log(ws.name, ws.rowCount);
for (let r = 1; r <= 4; r++) console.log(JSON.stringify(ws.getRow(r).values));
