/**
 * A Korean personal name written in Hangul, read as the sanctions lists spell North Korean names: one word per
 * syllable, in the McCune-Reischauer spelling without its diacritics that the DPRK's own romanisation follows
 * ("김정은" KIM Jong Un, "최룡해" CHOE Ryong Hae, "오극렬" O Kuk Ryol). fold.ts reads Hangul by the Revised
 * Romanisation, in one word ("gimjeongeun"), which is how South Korea writes names and far from these spellings.
 */

import { HANGUL_FINAL, HANGUL_MEDIAL } from './fold.js';

// By jamo. ㄹ stays r at the start of a syllable, as North Korean spelling keeps it (리, Ri; 룡, Ryong).
const INITIAL = ['k', 'kk', 'n', 't', 'tt', 'r', 'm', 'p', 'pp', 's', 'ss', '', 'j', 'jj', 'ch', 'kh', 'th', 'ph', 'h'];
// The Revised Romanisation's vowels (fold.ts) with eo and eu written o and u, as McCune-Reischauer writes ŏ and ŭ.
const MEDIAL = HANGUL_MEDIAL.map((v) => v.replace('eo', 'o').replace('eu', 'u'));
const FINAL = HANGUL_FINAL;

/**
 * A name as Korean writes it, surname first: one word of two to four syllables (a surname of one or two and a given
 * name of one to three), or a one-syllable surname, a space and the given name. Longer Hangul is a foreign name or
 * an organisation, which this reading would cut into meaningless syllables; a one-syllable word last ("영호 최") is a
 * surname put last in the Western way, which the voicing below would misread.
 */
const KOREAN_NAME = /^(?:[\uac00-\ud7a3]{2,4}|[\uac00-\ud7a3] [\uac00-\ud7a3]{1,3})$/;

/** ㄱ, ㄷ, ㅂ voiced (g, d, b) inside a given name after a vowel, n, m, ng or l: "리만건" RI Man Gon, "김영복" KIM Yong Bok. */
const VOICED: Record<string, string> = { k: 'g', t: 'd', p: 'b' };
const VOICING_FINALS = new Set(['', 'n', 'm', 'ng', 'l']);

/** The name syllable by syllable ("kim jong un"), or undefined when it is not a Korean personal name in Hangul. */
export function koreanNameReading(name: string): string | undefined {
  const trimmed = name.trim().replace(/\s+/g, ' ');
  if (!KOREAN_NAME.test(trimmed)) return undefined;
  const words: string[] = [];
  let previousFinal: string | undefined;
  for (const ch of trimmed.replace(/ /g, '')) {
    const code = ch.charCodeAt(0) - 0xac00;
    let initial = INITIAL[Math.floor(code / 588)]!;
    // The first syllable is the surname and the second begins the given name: neither follows a sound of its word.
    if (words.length >= 2 && VOICING_FINALS.has(previousFinal!)) initial = VOICED[initial] ?? initial;
    previousFinal = FINAL[code % 28]!;
    words.push(initial + MEDIAL[Math.floor((code % 588) / 28)]! + previousFinal);
  }
  return words.join(' ');
}
