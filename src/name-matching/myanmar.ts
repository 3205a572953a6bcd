/**
 * Burmese to Latin, syllable by syllable, in the spelling Burmese names are written in on the lists ("Min Aung
 * Hlaing", "Thein Sein", "Khin Nyunt"). any-ascii spells each letter on its own, so the rhyme a syllable's vowel
 * signs and final consonant make together is lost: "တင်" (Tin) became "tn", "အောင်" (Aung) "'ean", and
 * "မင်းအောင်လှိုင်" "mn'eanlhiun". Syllables of one written word stay one token: the index also holds every name
 * glued ("minaunghlaing").
 *
 * A consonant with no vowel sign before another consonant is left without a vowel: that is how Burmese writes
 * the consonant clusters of foreign names ("ဗလာဒီမီယာ", Vladimir).
 */
import anyAscii from 'any-ascii';

const INITIALS: Record<string, string> = {
  က: 'k',
  ခ: 'kh',
  ဂ: 'g',
  ဃ: 'g',
  င: 'ng',
  စ: 's',
  ဆ: 's',
  ဇ: 'z',
  ဈ: 'z',
  ည: 'ny',
  ဉ: 'ny',
  ဋ: 't',
  ဌ: 'ht',
  ဍ: 'd',
  ဎ: 'd',
  ဏ: 'n',
  တ: 't',
  ထ: 'ht',
  ဒ: 'd',
  ဓ: 'd',
  န: 'n',
  ပ: 'p',
  ဖ: 'ph',
  ဗ: 'b',
  ဘ: 'b',
  မ: 'm',
  ယ: 'y',
  ရ: 'y',
  လ: 'l',
  ဝ: 'w',
  သ: 'th',
  ဟ: 'h',
  ဠ: 'l',
  အ: '',
  ဣ: 'i',
  ဤ: 'i',
  ဥ: 'u',
  ဦ: 'u',
  ဧ: 'e',
  ဩ: 'aw',
  ဪ: 'aw',
};

/**
 * Rhymes: the vowel signs (in Unicode order) and the final consonant, its asat (်) dropped. The key is the
 * vowel signs, a "|", and the final.
 */
const RHYMES: Record<string, string> = {
  '|': 'a',
  'ာ|': 'a',
  'ါ|': 'a',
  'ိ|': 'i',
  'ီ|': 'i',
  'ု|': 'u',
  'ူ|': 'u',
  'ေ|': 'e',
  'ဲ|': 'e',
  'ော|': 'aw',
  'ေါ|': 'aw',
  'ို|': 'o',
  '|က': 'et',
  'ော|က': 'auk',
  'ေါ|က': 'auk',
  'ို|က': 'aik',
  '|င': 'in',
  'ော|င': 'aung',
  'ေါ|င': 'aung',
  'ို|င': 'aing',
  'ု|င': 'ong',
  '|စ': 'it',
  '|ည': 'i',
  '|ဉ': 'in',
  '|တ': 'at',
  'ိ|တ': 'eik',
  'ု|တ': 'ok',
  '|န': 'an',
  'ိ|န': 'ein',
  'ု|န': 'on',
  '|ပ': 'at',
  'ိ|ပ': 'eik',
  'ု|ပ': 'ok',
  '\u103d|န': 'un',
  '\u103d|တ': 'ut',
  '|မ': 'an',
  'ိ|မ': 'ein',
  'ု|မ': 'on',
  '|ံ': 'an',
  'ိ|ံ': 'ein',
  'ု|ံ': 'on',
  '|ယ': 'e',
  'ို|လ': 'o',
};

const ASAT = '\u103a';
const ANUSVARA = '\u1036';
const DOT_BELOW = '\u1037';
const MEDIAL = /[\u103b-\u103e]/;
const MEDIAL_Y = /[\u103b\u103c]/; // ျ ြ
const MEDIAL_W = '\u103d'; // ွ
const MEDIAL_H = '\u103e'; // ှ
const VOWEL_SIGN = /[\u102b-\u1032]/;
const TONE = /[\u1037\u1038]/;
const INDEPENDENT_VOWEL = /[\u1023-\u102a]/;
const NASAL_FINALS = new Set(['င', 'ဉ', 'န', 'မ', ANUSVARA]);

/** Burmese has no v: foreign names write it ဗ ("ဗီယက်နမ်", Vietnam). */
const FOREIGN_V = 'ဗ';

function initialWithMedials(consonant: string, medials: string, foreign: boolean): string {
  let out = foreign && consonant === FOREIGN_V ? 'v' : INITIALS[consonant]!;
  if (medials.includes(MEDIAL_H)) out = consonant === 'ရ' || consonant === 'ယ' ? 'sh' : `h${out}`;
  if (MEDIAL_Y.test(medials)) out = out === 'kh' ? 'ch' : `${out}y`;
  if (medials.includes(MEDIAL_W)) out += 'w';
  return out;
}

/** `foreign`: the reading of a foreign name, with ဗ as v. */
export function myanmarToLatin(run: string, foreign: boolean): string {
  const chars = [...run];
  let out = '';
  let i = 0;
  const take = (test: (ch: string) => boolean): string => {
    let taken = '';
    while (i < chars.length && test(chars[i]!)) taken += chars[i++]!;
    return taken;
  };
  while (i < chars.length) {
    const c = chars[i++]!;
    if (!(c in INITIALS)) {
      // Digits and punctuation; a sign with no letter before it says nothing.
      if (!/[\u102b-\u103e]/.test(c)) out += anyAscii(c);
      continue;
    }
    const medials = take((ch) => MEDIAL.test(ch));
    const signs = take((ch) => VOWEL_SIGN.test(ch) || ch === ANUSVARA || TONE.test(ch));
    let vowels = signs.replace(/[\u1036\u1037\u1038]/g, '');
    let final = signs.includes(ANUSVARA) ? ANUSVARA : '';
    let creaky = signs.includes(DOT_BELOW);
    // A consonant followed by asat (a tone mark may come between) closes the syllable.
    const next = chars.slice(i, i + 3).join('');
    const closing = /^([\u1000-\u1021])(\u1037?)\u103a/.exec(next);
    if (!final && closing) {
      final = closing[1]!;
      creaky ||= closing[2] !== '';
      i += closing[0].length;
    }
    creaky ||= take((ch) => TONE.test(ch) || ch === ASAT).includes(DOT_BELOW);
    if (INDEPENDENT_VOWEL.test(c)) {
      out += INITIALS[c];
      continue;
    }
    const initial = initialWithMedials(c, medials, foreign);
    if (!vowels && !final) {
      // A bare consonant before another is a cluster of a foreign name ("ဗလာ", vla); at the end, or with a
      // medial ("လှ", Hla), it has its "a".
      out += initial + (!medials && i < chars.length && chars[i]! in INITIALS ? '' : 'a');
      continue;
    }
    // ွ with a final n or t is the vowel u: "ထွန်း" is Htun.
    let onset = initial;
    if (onset.endsWith('w') && !vowels && (final === 'န' || final === 'တ')) {
      onset = onset.slice(0, -1);
      vowels = MEDIAL_W;
    }
    out += onset + (RHYMES[`${vowels}|${final}`] ?? 'a');
    // A nasal final with the creaky tone is written with a t: "မြင့်" Myint, "ညွန့်" Nyunt.
    if (creaky && NASAL_FINALS.has(final)) out += 't';
  }
  return out;
}
