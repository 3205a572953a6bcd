/**
 * Name normalisation shared by the index and the queries, so both sides agree:
 * fold script/case/punctuation, canonicalise Arabic particles, drop titles and legal forms.
 * Token order is left alone; the scorer aligns tokens order-free.
 */
import { foldText } from './fold.js';
import { nameTables, type NameTables } from './name-tables.js';
import { lookupTable } from '../own-keys.js';

/** Particles that carry no identity: the article (al-, el-) and patronymic links (bin, ibn). */
const DROPPED_PARTICLES = new Set(['al', 'el', 'bin', 'ibn', 'bint', 'binti']);

/**
 * "Abd al-X", "Abdul X", "Abdel X", "Abdur-X", "AbdulX"… all become the two tokens "abd x": a separate
 * prefix token keeps "Rahman Abdul" (swapped order) and "Abdulrahman" (glued) aligned with "Abd al-Rahman".
 */
const ABD_PREFIX = /^(?:abd|abdu|abdul|abdel|abdal|abdil|abdoul|abdur|abdus|abduz)$/;
const ABD_GLUED = /^(?:abdul|abdel|abdal|abdoul|abdur|abdus|abd)(.{3,})$/;
const ABD_ARTICLE = new Set(['al', 'el', 'ul', 'ur', 'ar', 'as', 'us', 'ad', 'an', 'az', 'at', 'ash', 'es', 'ed', 'l']);
/** Abdullah/Abdallah/Abd Allah: "servant of God", spelled many ways; one canonical token. */
const ALLAH = /^(?:l?lah|l?la|allah|alla|ullah|ulla)$/;

const CANONICAL = lookupTable({ abou: 'abu', abo: 'abu' });

function canonicaliseParticles(tokens: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = CANONICAL[tokens[i]!] ?? tokens[i]!;
    if (ABD_PREFIX.test(t)) {
      // Skip an article between the prefix and the name ("abd al rahman").
      if (ABD_ARTICLE.has(tokens[i + 1] ?? '') && i + 2 < tokens.length) i++;
      if (ALLAH.test(tokens[i + 1] ?? '')) {
        out.push('abdullah');
        i++;
      } else out.push('abd');
      continue;
    }
    const glued = ABD_GLUED.exec(t);
    if (glued) out.push(...(ALLAH.test(glued[1]!) ? ['abdullah'] : ['abd', glued[1]!]));
    else if (!DROPPED_PARTICLES.has(t)) out.push(t);
  }
  return out.length ? out : tokens;
}

/** Removes the longest phrase of `set` at the start (or end) of `tokens`, keeping at least one token. */
function stripPhrase(tokens: string[], set: Set<string>, atEnd: boolean, t: NameTables): string[] | null {
  for (let k = Math.min(t.maxPhrase, tokens.length - 1); k >= 1; k--) {
    const part = atEnd ? tokens.slice(tokens.length - k) : tokens.slice(0, k);
    if (set.has(part.join(' '))) return atEnd ? tokens.slice(0, tokens.length - k) : tokens.slice(k);
  }
  return null;
}

function dropHonorifics(tokens: string[], t: NameTables): string[] {
  const kept = tokens.filter((tok) => !t.honorifics.has(tok));
  return kept.length ? kept : tokens;
}

function stripAffixes(tokens: string[], t: NameTables): string[] {
  let current = tokens;
  for (;;) {
    const next =
      stripPhrase(current, t.leadingTitles, false, t) ??
      stripPhrase(current, t.leadingForms, false, t) ??
      stripPhrase(current, t.trailingForms, true, t);
    if (!next) return current;
    current = next;
  }
}

/** Normalised tokens of a name; empty only when the name has no letters or digits at all. */
export function normaliseName(name: string): string[] {
  const folded = foldText(name);
  if (!folded) return [];
  const tables = nameTables();
  // Honorifics go first so that they cannot separate "abd" from the name it prefixes.
  return stripAffixes(canonicaliseParticles(dropHonorifics(folded.split(' '), tables)), tables);
}

export function normaliseKey(name: string): string {
  return normaliseName(name).join(' ');
}
