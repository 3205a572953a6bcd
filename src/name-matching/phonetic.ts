/**
 * Phonetic keys (Double Metaphone, via the `double-metaphone` package) so that spellings that sound
 * alike ("Qaddafi"/"Gadafi", "Mohamed"/"Muhammad") share an index key even when their letters differ.
 */
import { doubleMetaphone } from 'double-metaphone';

/** Distinct keys of one normalised token; none for tokens too short or without letters to key reliably. */
export function phoneticKeys(token: string): string[] {
  if (token.length < 3 || !/[a-z]/.test(token)) return [];
  const [primary, secondary] = doubleMetaphone(token);
  const keys: string[] = [];
  if (primary) keys.push(primary);
  if (secondary && secondary !== primary) keys.push(secondary);
  return keys;
}
