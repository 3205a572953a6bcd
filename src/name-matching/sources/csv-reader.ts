/**
 * A minimal RFC 4180 reader (quoted cells, doubled quotes, newlines inside quotes, CRLF).
 * Hand-written because start-up parses ~7 MB of list CSV: this is 6–7× faster than csv-parse here
 * (35 ms vs 230 ms for sdn.csv). Unquoted cells are trimmed: OFAC pads cells with a space.
 */
const QUOTE = 34;
const COMMA = 44;
const NEWLINE = 10;

export function readCsv(input: string): string[][] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const rows: string[][] = [];
  const n = text.length;
  let row: string[] = [];
  let i = 0;
  while (i < n) {
    let cell: string;
    if (text.charCodeAt(i) === QUOTE) {
      cell = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) {
          cell += text.slice(from);
          i = n;
          break;
        }
        cell += text.slice(from, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          cell += '"';
          from = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      // Anything between the closing quote and the separator (a stray space, '\r') is dropped.
      while (i < n && text.charCodeAt(i) !== COMMA && text.charCodeAt(i) !== NEWLINE) i++;
    } else {
      let j = i;
      while (j < n && text.charCodeAt(j) !== COMMA && text.charCodeAt(j) !== NEWLINE) j++;
      cell = text.slice(i, j).trim();
      i = j;
    }
    row.push(cell);
    if (i >= n || text.charCodeAt(i) === NEWLINE) {
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    }
    i++;
  }
  return rows;
}
