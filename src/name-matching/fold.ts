/**
 * Script and case folding: lower case, no diacritics, Cyrillic and Greek transliterated to Latin,
 * punctuation to spaces. Apostrophes and the dots of initialisms ("P.L.C.") vanish without a space
 * so "O'Brien" and "OBrien", "P.L.C." and "PLC" fold alike.
 */
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

export function foldText(input: string): string {
  let s = input.toLowerCase();
  if (NON_ASCII.test(s)) {
    s = s.normalize('NFKD').replace(/\p{M}+/gu, '');
    s = s.replace(/[^\p{ASCII}]/gu, (ch) => LETTERS[ch] ?? ch);
  }
  return s
    .replace(/['’‘`ʼʻ´]/g, '')
    .replace(/\b(?:\p{L}\.){2,}/gu, (m) => m.replace(/\./g, ''))
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
