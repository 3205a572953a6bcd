/**
 * Country names as lists spell them → ISO 3166-1 alpha-2 (lower case).
 * ICU's English region names cover most; the table adds the list-specific spellings
 * ("Korea, North", UN long forms, adjectives such as "Palestinian").
 */
const EXTRA: Record<string, string> = {
  'korea north': 'kp',
  'north korea': 'kp',
  "democratic people's republic of korea": 'kp',
  'korea south': 'kr',
  'republic of korea': 'kr',
  'south korea': 'kr',
  burma: 'mm',
  palestinian: 'ps',
  'possibly palestinian': 'ps',
  'region gaza': 'ps',
  'state of palestine': 'ps',
  'congo democratic republic of the': 'cd',
  'democratic republic of the congo': 'cd',
  'congo republic of the': 'cg',
  'republic of the congo': 'cg',
  congo: 'cg',
  'iran islamic republic of': 'ir',
  'syrian arab republic': 'sy',
  'russian federation': 'ru',
  'viet nam': 'vn',
  'lao peoples democratic republic': 'la',
  'united kingdom of great britain and northern ireland': 'gb',
  'united states of america': 'us',
  'united republic of tanzania': 'tz',
  'bolivia plurinational state of': 'bo',
  'venezuela bolivarian republic of': 've',
  'republic of moldova': 'md',
  'north macedonia the republic of': 'mk',
  'the gambia': 'gm',
  'man isle of': 'im',
  'virgin islands british': 'vg',
  'czech republic': 'cz',
  turkiye: 'tr',
  'cote d ivoire': 'ci',
  "cote d'ivoire": 'ci',
  'ivory coast': 'ci',
  'hong kong': 'hk',
  taiwan: 'tw',
  kosovo: 'xk',
  'cabo verde': 'cv',
  swaziland: 'sz',
};

function key(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const byName: Map<string, string> = (() => {
  const table = new Map<string, string>();
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      // Deprecated codes (SU, YU, ZR…) display as their successor's name; keep only the current code.
      if (Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
      const name = names.of(code);
      // ICU echoes unknown codes back unchanged.
      if (name && name !== code) table.set(key(name), code.toLowerCase());
    }
  }
  for (const [name, code] of Object.entries(EXTRA)) table.set(key(name), code);
  return table;
})();

/** Two-letter codes pass through (lower-cased); names are looked up; unknown → null. */
export function countryCode(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) return trimmed.toLowerCase();
  return byName.get(key(trimmed)) ?? null;
}
