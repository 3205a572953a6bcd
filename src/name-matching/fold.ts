/**
 * Script and case folding: lower case, no diacritics, every script transliterated to Latin, punctuation to
 * spaces. Apostrophes and the dots of initialisms ("P.L.C.") vanish without a space so "O'Brien" and "OBrien",
 * "P.L.C." and "PLC" fold alike.
 *
 * Cyrillic and Greek use the table below (the BGN/PCGN spellings sanctions lists use); Hangul is romanised
 * here (the loanword rules any-ascii lacks); katakana, Khmer and Burmese by their own modules (any-ascii spells
 * their letters one by one); every other script (Arabic, Hebrew, Chinese, Indic…) goes through any-ascii.
 */
import anyAscii from 'any-ascii';
import { katakanaToLatin } from './katakana.js';
import { khmerToLatin } from './khmer.js';
import { myanmarToLatin } from './myanmar.js';
const LETTERS: Record<string, string> = {
  ß: 'ss',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ı: 'i',
  þ: 'th',
  ħ: 'h',
  // Cyrillic (Russian, Ukrainian, Belarusian), close to the BGN/PCGN spellings OFAC uses.
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  і: 'i',
  ї: 'yi',
  є: 'ye',
  ґ: 'g',
  ў: 'u',
  ә: 'a',
  қ: 'q',
  ғ: 'gh',
  ң: 'ng',
  ө: 'o',
  ұ: 'u',
  ү: 'u',
  һ: 'h',
  ӣ: 'i',
  ҷ: 'j',
  // Greek
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
};

const NON_ASCII = /[^\p{ASCII}]/u;

/** Greek digraphs read as one sound: ου is u, ντ/μπ/γκ open a word as d/b/g ("Ντόρα" Dora, "Πούτιν" Putin). */
const GREEK_DIGRAPHS: [RegExp, string][] = [
  [/ου/g, 'u'],
  [/(^|[^\p{L}])ντ/gu, '$1d'],
  [/(^|[^\p{L}])μπ/gu, '$1b'],
  [/(^|[^\p{L}])γκ/gu, '$1g'],
  [/γκ/g, 'ng'],
  [/ντ/g, 'nd'],
];
/**
 * Greek writes the d, b, g and ch of foreign names with digraphs, inside a word too: δ, β, γ are fricatives and Greek
 * has no ch ("Βλαντίμιροβιτς", Vladimirovich).
 */
const GREEK_FOREIGN: [RegExp, string][] = [
  [/ου/g, 'u'],
  [/ντ/g, 'd'],
  [/μπ/g, 'b'],
  [/γκ/g, 'g'],
  [/τ[σς]/g, 'ch'],
];

// Revised Romanisation of Korean, by jamo. Initial ㄹ is r, final ㄹ is l.
const HANGUL_INITIAL = ['g', 'kk', 'n', 'd', 'tt', 'r', 'm', 'b', 'pp', 's', 'ss', '', 'j', 'jj', 'ch', 'k', 't', 'p', 'h'];
export const HANGUL_MEDIAL = [
  'a',
  'ae',
  'ya',
  'yae',
  'eo',
  'e',
  'yeo',
  'ye',
  'o',
  'wa',
  'wae',
  'oe',
  'yo',
  'u',
  'wo',
  'we',
  'wi',
  'yu',
  'eu',
  'ui',
  'i',
];
export const HANGUL_FINAL = [
  '',
  'k',
  'k',
  'k',
  'n',
  'n',
  'n',
  't',
  'l',
  'k',
  'm',
  'l',
  'l',
  'l',
  'p',
  'l',
  'm',
  'p',
  'p',
  't',
  't',
  'ng',
  't',
  't',
  'k',
  't',
  'p',
  't',
];
const HANGUL_EU = 18;
/** ㅂ, which also writes the v of foreign names: Korean has no v ("블라디미르", Vladimir). */
const HANGUL_B = 7;

/**
 * Hangul syllables to Latin. Foreign names written in Hangul add the vowel ㅡ (eu) after consonants Korean cannot
 * end a syllable with ("블라디미르" for Vladimir); after a consonant it is dropped, and a final ㄹ before an initial
 * ㄹ is one l, so "블라디미르 푸틴" reads "bladimir putin".
 */
function romaniseHangul(text: string, foreign: boolean): string {
  let out = '';
  let previousFinalL = false;
  for (const ch of text) {
    const code = ch.charCodeAt(0) - 0xac00;
    if (code < 0 || code > 11171) {
      out += ch;
      previousFinalL = false;
      continue;
    }
    const initial = Math.floor(code / 588);
    const medial = Math.floor((code % 588) / 28);
    const final = code % 28;
    let initialText = foreign && initial === HANGUL_B ? 'v' : HANGUL_INITIAL[initial]!;
    if (initialText === 'r' && previousFinalL) initialText = '';
    const medialText = medial === HANGUL_EU && initialText !== '' && initial !== 11 ? '' : HANGUL_MEDIAL[medial]!;
    out += initialText + medialText + HANGUL_FINAL[final]!;
    previousFinalL = HANGUL_FINAL[final] === 'l';
  }
  return out;
}

const HANGUL = /[\uac00-\ud7a3]/;
const GREEK = /[\u0370-\u03ff]/;
/** Runs of letters in scripts the table does not cover (the katakana long-vowel mark ー included), each read whole. */
const OTHER_SCRIPTS = /(?:[^\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Common}\p{Script=Inherited}]|\u30fc)+/gu;
const ARMENIAN = /\p{Script=Armenian}/u;

const KHMER = /\p{Script=Khmer}/u;
const KATAKANA = /^[\u30a0-\u30ff]+$/;
const MYANMAR = /\p{Script=Myanmar}/u;

function transliterateRun(run: string, foreign: boolean): string {
  if (KHMER.test(run)) return ` ${khmerToLatin(run)} `;
  if (MYANMAR.test(run)) return ` ${myanmarToLatin(run, foreign)} `;
  if (KATAKANA.test(run)) return ` ${katakanaToLatin(run, foreign)} `;
  const latin = anyAscii(run.replaceAll('\u30fc', '')).toLowerCase();
  // Armenian writes u as two letters, ու, which any-ascii spells "ow" ("Պուտին" Putin).
  return ` ${ARMENIAN.test(run) ? latin.replaceAll('ow', 'u') : latin} `;
}

/**
 * `foreign` reads a name as a foreign name written in a script that lacks some of its sounds: Hangul ㅂ and
 * Burmese ဗ as v, Greek ντ, μπ, τσ as d, b, ch, katakana in the older convention of Russian names (katakana.ts). It is a second reading of the
 * name (normalise.ts), the first being the script's own.
 */
export function foldText(input: string, foreign = false): string {
  let s = input.toLowerCase();
  if (NON_ASCII.test(s)) {
    if (HANGUL.test(s)) s = romaniseHangul(s, foreign);
    // Before NFKD: it would split Indic vowel signs and Japanese voicing marks off their letters.
    s = s.replace(OTHER_SCRIPTS, (run) => transliterateRun(run, foreign));
    s = s.normalize('NFKD').replace(/\p{M}+/gu, '');
    if (GREEK.test(s)) for (const [re, to] of foreign ? GREEK_FOREIGN : GREEK_DIGRAPHS) s = s.replace(re, to);
    s = s.replace(/[^\p{ASCII}]/gu, (ch) => LETTERS[ch] ?? anyAscii(ch));
  }
  return s
    .replace(/['’‘`ʼʻ´]/g, '')
    .replace(/\b(?:\p{L}\.){2,}/gu, (m) => m.replace(/\./g, ''))
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
