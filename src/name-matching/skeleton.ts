/**
 * Consonant skeletons, for names written in Arabic, Persian, Urdu or Hebrew. Those scripts leave most vowels
 * unwritten, so their transliteration ("fldymyr bwtyn") shares little with the Latin spelling ("Vladimir Putin")
 * but its consonants. A skeleton keeps those, with the sounds the scripts merge made one (p/b/f/v, k/q/c, s/z…):
 * both spellings above become "bldmr btn".
 */
const MERGED: Record<string, string> = { p: 'b', f: 'b', v: 'b', q: 'k', c: 'k', z: 's', x: 'ks' };
const DIGRAPHS = /tsh|kh|gh|th|dh|sh|ch|ts|ph/g;
const DIGRAPH: Record<string, string> = { tsh: 's', kh: 'k', gh: 'g', th: 't', dh: 'd', sh: 's', ch: 's', ts: 's', ph: 'b' };

export function skeleton(token: string): string {
  const t = token.replace(DIGRAPHS, (d) => DIGRAPH[d]!);
  let out = '';
  for (let i = 0; i < t.length; i++) {
    let ch = t[i]!;
    // w and y are consonants only where they open the name (Persian "wldymyr"); inside it they write u and i.
    if (ch === 'w' && i === 0) ch = 'b';
    if ('aeiouwy'.includes(ch) && !(ch === 'y' && i === 0)) continue;
    ch = MERGED[ch] ?? ch;
    if (!out.endsWith(ch)) out += ch;
  }
  return out;
}

/** Scripts written without most vowels. */
export const ABJAD = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;
