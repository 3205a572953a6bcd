/**
 * One name part written in many scripts and spellings, as opensanctions/rigour's `person_name_parts` groups list
 * it (MIT, bundled in data/reference/symbols.json): "普京", "プーチン", "Putyin" and "Poutine" are all Putin. The
 * members are normalised as query tokens are, so a query token finds its group's other spellings whatever script
 * it was written in; the Chinese one, read syllable by syllable ("pujing"), resembles none of them.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from './data-path.js';
import { normaliseName } from './normalise.js';

let table: Map<string, string[]> | undefined;

/** A member's tokens, read both ways a script allows: a group's multi-word members ("el Gadafi") are left out. */
function tokensOf(member: string): string[] {
  return [normaliseName(member), normaliseName(member, true)].filter((t) => t.length === 1).map((t) => t[0]!);
}

/** Normalised name part → the other normalised spellings of its group. */
export function nameParts(): Map<string, string[]> {
  if (table) return table;
  const symbols = JSON.parse(readFileSync(dataPath('reference/symbols.json'), 'utf8')) as {
    person_name_parts: Record<string, string[]>;
  };
  const map = new Map<string, string[]>();
  for (const group of Object.values(symbols.person_name_parts)) {
    const spellings = [...new Set(group.flatMap(tokensOf))];
    for (const s of spellings) {
      const others = map.get(s) ?? [];
      for (const o of spellings) if (o !== s && !others.includes(o)) others.push(o);
      map.set(s, others);
    }
  }
  table = map;
  return map;
}
