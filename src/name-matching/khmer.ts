/**
 * Khmer to Latin with the vowel of each consonant's series. A Khmer vowel sign reads one way after a first-series
 * consonant and another after a second-series one (UNGEGN): ពូ is "pu", កូ "kou". any-ascii reads every vowel as
 * after the first series, so "ហ៊ុន" (Hun) became "hon" and "ពូទីន" (Putin) "poutein"; it still spells each letter.
 */
import anyAscii from 'any-ascii';

/** Second-series consonants: គ ឃ ង ជ ឈ ញ ឌ ឍ ទ ធ ន ព ភ ម យ រ ល វ. */
const SECOND_SERIES = new Set('គឃងជឈញឌឍទធនពភមយរលវ');
/** Sonorants: below another consonant they leave the cluster in the series of the consonant above. */
const SONORANTS = new Set('ងញនមយរលវ');
const TO_FIRST = '\u17c9'; // ៉ musikatoan
const TO_SECOND = '\u17ca'; // ៊ triisap
const COENG = '\u17d2'; // ្ the next consonant is written below

/** The second-series readings that differ from the first-series ones any-ascii gives. */
const SECOND_SERIES_VOWELS: Record<string, string> = {
  'ា': 'ea',
  'ិ': 'i',
  'ី': 'i',
  'ឹ': 'eu',
  'ុ': 'u',
  'ូ': 'u',
  'ើ': 'eu',
  'ៃ': 'ey',
  'ោ': 'o',
  'ៅ': 'ov',
};

const CONSONANT = /[\u1780-\u17a2]/;

export function khmerToLatin(run: string): string {
  let out = '';
  let second = false;
  let belowNext = false;
  for (const ch of run) {
    if (CONSONANT.test(ch)) {
      const below = belowNext;
      belowNext = false;
      // A subscript decides the cluster's series unless it is a sonorant.
      if (!below || !SONORANTS.has(ch)) second = SECOND_SERIES.has(ch);
      out += anyAscii(ch);
      continue;
    }
    if (ch === COENG) belowNext = true;
    else if (ch === TO_FIRST) second = false;
    else if (ch === TO_SECOND) second = true;
    else out += (second && SECOND_SERIES_VOWELS[ch]) || anyAscii(ch);
  }
  return out;
}
