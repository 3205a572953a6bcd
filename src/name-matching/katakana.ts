/**
 * Katakana to Latin (Hepburn), the script Japanese writes foreign names in. any-ascii reads each kana on its own,
 * so the small kana that modify the one before are misread ("ジョージ" George became "jiyoji", "ティ" "tei",
 * "マッカーサー" MacArthur "matkasa"); here ャュョ make "jo", "sha"; ァィゥェォ replace the vowel ("ti", "fa",
 * "vi"); ッ doubles the next consonant; the long-vowel mark ー is dropped, as foreign names spell no long vowels.
 *
 * `foreign` reads the older convention Russian and other foreign names are still written in, with no kana for
 * ti, di or a consonant alone: チ stands for ti ("プーチン", Putin; at a word's end for ch, "-ヴィチ" -vich), ジ
 * for di, a closing u (o after t, d) is the vowel Japanese adds to a final consonant ("ミル", mir), and ウ before
 * r opens the v of Vl-/Vr- ("ウラジーミル", Vladimir).
 */
import anyAscii from 'any-ascii';

const YOON: Record<string, string> = { ャ: 'a', ュ: 'u', ョ: 'o' };
const SMALL_VOWELS: Record<string, string> = { ァ: 'a', ィ: 'i', ゥ: 'u', ェ: 'e', ォ: 'o' };
const SOKUON = 'ッ';
const CHOONPU = 'ー';

function hepburn(run: string): string {
  let out = '';
  let doubled = false;
  let previous = '';
  for (const ch of run) {
    if (ch === CHOONPU) continue;
    if (ch === SOKUON) {
      doubled = true;
      continue;
    }
    const yoon = YOON[ch];
    const small = SMALL_VOWELS[ch];
    if (yoon) {
      // キャ kya, but シャ sha, チャ cha, ジャ ja.
      out = out.replace(/i$/, '');
      out += /(?:sh|ch|j)$/.test(out) ? yoon : `y${yoon}`;
    } else if (small) {
      // ウィ wi, ヴィ vi, ティ ti, ファ fa, シェ she.
      out = previous === 'ウ' ? `${out.slice(0, -1)}w` : out.replace(/[aeiou]$/, '');
      out += small;
    } else {
      let latin = anyAscii(ch).toLowerCase();
      if (doubled && latin) latin = (latin.startsWith('ch') ? 't' : latin[0]) + latin;
      out += latin;
    }
    doubled = false;
    previous = ch;
  }
  return out;
}

function olderConvention(word: string): string {
  return word
    .replace(/chi$/, 'ch')
    .replace(/chi/g, 'ti')
    .replace(/ji/g, 'di')
    .replace(/^v?ur(?=[aeiou])/, 'vr')
    .replace(/([^aeiou])u$/, '$1')
    .replace(/([td])o$/, '$1');
}

/** A run of katakana: one word, as the middle dot ・ and spaces are not katakana. */
export function katakanaToLatin(run: string, foreign: boolean): string {
  const latin = hepburn(run);
  return foreign ? olderConvention(latin) : latin;
}
