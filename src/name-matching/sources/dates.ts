import { lookupTable } from '../../own-keys.js';
/** Birth dates as lists write them → ISO forms (YYYY-MM-DD, YYYY-MM or YYYY); ranges keep both ends. */
const MONTHS = lookupTable({
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
});

/** "1958 to 1962" → "1958;1959;1960;1961;1962" (the spec's "several years separated by semicolon"). */
export function yearRange(from: number, to: number): string {
  const years: number[] = [];
  for (let y = from; y <= to && years.length < 20; y++) years.push(y);
  return years.join(';');
}

/** OFAC: "01 Jan 1960", "Jan 1960", "1960", "circa 1960", "1958 to 1962". */
export function parseOfacDate(text: string): string {
  const t = text.replace(/^circa\s+/i, '').trim();
  const range = /^(\d{4}) to (\d{4})$/.exec(t);
  if (range) return yearRange(Number(range[1]), Number(range[2]));
  const m = /^(?:(\d{1,2}) )?([A-Za-z]{3})[a-z]* (\d{4})$/.exec(t);
  if (m && MONTHS[m[2]!.toLowerCase()]) {
    const month = `${m[3]}-${MONTHS[m[2]!.toLowerCase()]}`;
    return m[1] ? `${month}-${m[1].padStart(2, '0')}` : month;
  }
  return t;
}

/** Years mentioned in a birth_date field ("1960-01-01;1961" → [1960, 1961]). */
export function birthYears(value: string | null): number[] {
  if (!value) return [];
  return [...value.matchAll(/\b(1[89]\d\d|20\d\d)\b/g)].map((m) => Number(m[1]));
}
