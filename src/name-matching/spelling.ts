/**
 * Slavic names as other European languages romanise them, rewritten to the English (BGN/PCGN) spelling the lists
 * use: German Wladimir Wladimirowitsch, Polish Władimirowicz, Dutch Poetin and -witsj, French Poutine and -vitch,
 * Hungarian Vlagyimir Putyin and -vics, Scandinavian -vitj, Catalan -vitx, Lithuanian and Latvian endings
 * (Vladimiras, Putins), and the Bengali bh- for v-. A query token is also looked up in this spelling, credited a
 * little less than its own (token-match.ts), so a name that merely looks like another never gains from it.
 */
const RULES: [RegExp, string][] = [
  // Patronymic endings: -owitsch, -owicz, -ovitj, -ovics, -ovitch… → -ovich (-evich alike).
  [/([oe])[wv]i(?:tsch|tsj|tch|tj|tx|cz|cs)$/, '$1vich'],
  [/^w/, 'v'],
  [/^bh/, 'v'],
  [/tsch/g, 'ch'],
  [/sch/g, 'sh'],
  [/cz/g, 'ch'],
  [/sz/g, 'sh'],
  [/oe/g, 'u'],
  [/ou/g, 'u'],
  // Hungarian palatals before a vowel: gy is the d of Vlagyimir, ty the t of Putyin.
  [/gy(?=[aeiou])/g, 'd'],
  [/ty(?=[aeiou])/g, 't'],
  // Baltic nominative endings, and the French -e of Poutine, on a stem long enough to be a name of its own.
  [/^(.{4,}[^aeiou])(?:as|is|us|s|e)$/, '$1'],
];

/** The token in the English romanisation, or undefined when no rule applies. */
export function englishSpelling(token: string): string | undefined {
  if (token.length < 4) return undefined;
  let out = token;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out === token ? undefined : out;
}
