/**
 * The name particles that stay tokens after normalisation (normalise.ts drops al-, el-, bin, ibn and bint): the
 * theophoric prefix "abd" (servant of: Abd al-Rahman, Abdul, Abdel…), "abu" (father of) and "umm" (mother of).
 * Each prefixes the name after it: "Abd al-Rahman" is one name, not "Abd" and "Rahman". So a particle is weak
 * evidence: it is matched only to a particle of its kind prefixing the name matched to its own name (never a
 * bridge: "Abd Musa" is not "Muktar Abd al-Rahim"), and one that prefixes nothing (the family name al-'Abd, the
 * cut alias "MUSA ABDUL") only to the same word with no name after it either ("Abdul" is not al-'Abd).
 */

/** Per particle spelling a code; codes of one kind share the KIND_SHIFT bits above. */
const KIND_SHIFT = 2;
const CODES = new Map<string, number>([
  ['abd', (1 << KIND_SHIFT) | 1],
  // "Abdul", "Abdel"… with no name after them: a name of its own (normalise.ts), of the abd kind.
  ['abdul', (1 << KIND_SHIFT) | 2],
  ['abu', (2 << KIND_SHIFT) | 1],
  ['umm', (3 << KIND_SHIFT) | 1],
]);

/** The particle code of a normalised token; 0 for a name. */
export const particleCode = (token: string): number => CODES.get(token) ?? 0;

export const sameParticleKind = (a: number, b: number): boolean => a >> KIND_SHIFT === b >> KIND_SHIFT;
