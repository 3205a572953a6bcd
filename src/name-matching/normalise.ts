/**
 * Name normalisation shared by the index and the queries, so both sides agree:
 * fold script/case/punctuation, canonicalise Arabic particles, drop titles and legal forms.
 * Token order is left alone; the scorer aligns tokens order-free.
 */
import { foldText } from './fold.js';
import { nameTables, type NameTables } from './name-tables.js';
import { koreanNameReading } from './korean.js';
import { nicknames } from './nicknames.js';
import { lookupTable } from '../own-keys.js';
import { particleCode } from './particles.js';

/** Particles that carry no identity: the article (al-, el-) and patronymic links (bin, ibn). */
const DROPPED_PARTICLES = new Set(['al', 'el', 'bin', 'ibn', 'bint', 'binti', 'bn']);
/** "l-" is "al-" with its first letter lost ("l-TIKRITI"); alone it is an initial, so only a name's follows it. */
const ARTICLE_TYPO = 'l';

/**
 * "Abd al-X", "Abdul X", "Abdel X", "Abdur-X", "AbdulX"… all become the two tokens "abd x": a separate
 * prefix token keeps "Rahman Abdul" (swapped order) and "Abdulrahman" (glued) aligned with "Abd al-Rahman".
 */
// "adb" and "abdl" are the prefix's commonest typos ("ADB-AL-TAWWAB").
const ABD_PREFIX = /^(?:abd|adb|abdl|abdu|abdul|abdel|abdal|abdil|abdoul|abdur|abdus|abduz)$/;
/**
 * A prefix with no name after it is a word of its own: "Abdul" (a given name; what is left of "Abdul Hir" in the
 * alias "MUSA ABDUL") or the family name al-'Abd, "the servant". Each keeps its spelling (particles.ts).
 */
const BARE_ABD = /^(?:abd|adb)$/;
/**
 * A glued prefix leaves at least four letters of name: "Abdoulaye" and "Abdulai" are given names of their own,
 * not "abd aye".
 */
const ABD_GLUED = /^(abdoul|abdul|abdel|abdal|abdur|abdus|abd)(.*)$/;
const ABD_ARTICLE = new Set(['al', 'el', 'il', 'ul', 'ur', 'ar', 'as', 'us', 'ad', 'an', 'az', 'at', 'ash', 'es', 'ed', 'l']);
/** Abdullah/Abdallah/Abd Allah: "servant of God", spelled many ways; one canonical token. */
const ALLAH = /^(?:l?lah|l?la|allah|alla|ullah|ulla)$/;
const ABDULLAH_GLUED = /^abd(?:ou|u|a|e|i)?ll?ah?$/;

const CANONICAL = lookupTable({ abou: 'abu', abo: 'abu' });

function canonicaliseParticles(tokens: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = CANONICAL[tokens[i]!] ?? tokens[i]!;
    if (ABD_PREFIX.test(t)) {
      // Skip the articles between the prefix and the name ("abd al rahman"): all of them, or a second pass would
      // skip the one this pass left ("abdul el il a" must not read "abd il a" once and "abd a" after).
      while (ABD_ARTICLE.has(tokens[i + 1] ?? '') && i + 2 < tokens.length) i++;
      if (ALLAH.test(tokens[i + 1] ?? '')) {
        out.push('abdullah');
        i++;
      } else out.push(i + 1 < tokens.length || BARE_ABD.test(t) ? 'abd' : 'abdul');
      continue;
    }
    // The longest prefix, without backtracking: "abdoul|aye" is too short to split, and must not become "abd|oulaye".
    const glued = ABD_GLUED.exec(t);
    if (ABDULLAH_GLUED.test(t)) out.push('abdullah');
    else if (glued && glued[2]!.length >= 4) out.push('abd', glued[2]!);
    else if (!DROPPED_PARTICLES.has(t) && !(t === ARTICLE_TYPO && i + 1 < tokens.length && i > 0)) out.push(t);
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
      stripPhrase(current, t.leadingTitles, false, t) ?? stripPhrase(current, t.leadingForms, false, t) ?? stripTrailingForm(current, t);
    if (!next) return current;
    current = next;
  }
}

/**
 * A trailing legal form. One of two letters ("SA", "AB", "RO") must leave two words: after a single word it is
 * as likely a surname ("Thomas Sá").
 */
function stripTrailingForm(tokens: string[], t: NameTables): string[] | null {
  const next = stripPhrase(tokens, t.trailingForms, true, t);
  if (next && next.length === 1 && tokens.length === 2 && tokens[1]!.length <= 2) return null;
  return next;
}

/**
 * Normalised tokens of a name; empty only when the name has no letters or digits at all. `foreign`: read as a
 * foreign name in its script (fold.ts).
 */
export function normaliseName(name: string, foreign = false): string[] {
  const folded = foldText(name, foreign);
  if (!folded) return [];
  const tables = nameTables();
  // Honorifics go first so that they cannot separate "abd" from the name it prefixes. A name written in Chinese
  // characters has no Arabic particles: "彬" transliterates to "bin".
  const tokens = dropHonorifics(folded.split(' '), tables);
  return stripAffixes(HAN.test(name) ? tokens : canonicaliseParticles(tokens), tables);
}

const HAN = /\p{Script=Han}/u;
/** Scripts a foreign name is also read in as such (fold.ts): Hangul, katakana, Burmese, Greek. */
const FOREIGN_READING = /[\p{Script=Hangul}\p{Script=Katakana}\p{Script=Myanmar}\p{Script=Greek}]/u;

/**
 * A particle glued to the name it links ("BINSA'D", "ALKABI"): the name without it. "al"/"el" leave four letters
 * at least, and not from the Western given names that merely begin with them (Albert, Elena).
 */
const GLUED_PARTICLE = /^(?:bin|ibn|bint)([a-z]{3,})$|^(?:al|el)([a-z]{4,})$/;
const NOT_GLUED = new Set([
  'albert',
  'alberto',
  'albertine',
  'alfred',
  'alfredo',
  'alfonso',
  'alvaro',
  'alvin',
  'alban',
  'albin',
  'albina',
  'almira',
  'alpha',
  'alberta',
  'elena',
  'eliza',
  'elizabeth',
  'elliot',
  'elliott',
  'elmer',
  'elvis',
  'elvira',
  'ellen',
  'elton',
  'elbert',
  'elmira',
  'elsie',
]);

function unglued(tokens: readonly string[]): string[] | null {
  let changed = false;
  const out = tokens.map((t) => {
    const m = NOT_GLUED.has(t) ? null : GLUED_PARTICLE.exec(t);
    if (!m) return t;
    changed = true;
    return m[1] ?? m[2]!;
  });
  return changed ? out : null;
}

/**
 * Short forms → full names, per token, each followed by the forms they stand for. A one-word name is left
 * alone: the alias "TOM" must not become every Thomas.
 */
function withNicknames(tokens: readonly string[]): string[][] {
  if (tokens.length < 2) return [[...tokens]];
  const table = nicknames();
  let forms: string[][] = [[...tokens]];
  tokens.forEach((t, i) => {
    const full = table.get(t);
    if (!full) return;
    forms = forms.flatMap((f) => [f, ...full.map((name) => f.map((x, j) => (j === i ? name : x)))]).slice(0, MAX_FORMS);
  });
  return forms;
}

/**
 * A person's name written surname first ("AL-'ABD, Ahmad", "MAJEED, Abdul") in its natural order when it holds a
 * particle: a particle prefixes the name after it in that order (Ahmad al-'Abd, Abdul Majeed). Other names keep the
 * list's order, which their glued forms were made from.
 */
function particleOrder(name: string): string {
  const comma = name.indexOf(',');
  if (comma < 0 || name.includes(',', comma + 1)) return name;
  const natural = `${name.slice(comma + 1)} ${name.slice(0, comma)}`;
  return normaliseName(natural).some((t) => particleCode(t) !== 0) ? natural : name;
}

/** Two or more letters each followed by a full stop, not inside a word: "V.V.", "J.R.R.". */
const DOTTED_INITIALS = /(?<!\p{L})(?:\p{L}\.){2,}/gu;

/** Most forms of one name: each costs the query one more pass over the index. */
const MAX_FORMS = 4;

/**
 * Every form a name is matched under, the normalised name first: with initials written together read apart
 * ("V.V."), read as a foreign name where its script writes those apart ("블라디미르" also as Vladimir), with its
 * glued particles split off, with short forms of given names spelled out (Ted → Theodore, Dapo → Oladapo), and,
 * for a person's name, without legal forms stripped ("HAN YU-RO" keeps "ro", which rigour lists as a legal form).
 * `person`: whether a listed name is a person's or an organisation's; a query's is unknown (undefined).
 */
export function nameForms(given: string, options: { person?: boolean } = {}): string[][] {
  const name = options.person === false ? given : particleOrder(given);
  const primary = normaliseName(name);
  if (!primary.length) return [];
  const bases = [primary];
  const korean = koreanNameReading(given);
  if (korean) bases.push(normaliseName(korean));
  // "Putin V.V.": initials written together are folded into one token ("vv"); they are also read apart, except
  // in a listed organisation's name, where such runs are legal forms and abbreviations ("S.A. DE C.V.").
  const spaced = options.person === false ? name : name.replace(DOTTED_INITIALS, (run) => run.replaceAll('.', ' '));
  if (spaced !== name) {
    const apart = normaliseName(spaced);
    if (apart.join(' ') !== primary.join(' ')) bases.push(apart);
  }
  if (FOREIGN_READING.test(name)) {
    const foreign = normaliseName(name, true);
    if (foreign.join(' ') !== primary.join(' ')) bases.push(foreign);
  }
  if (options.person) {
    const folded = foldText(name);
    const tables = nameTables();
    const dropped = dropHonorifics(folded.split(' '), tables);
    const unstripped = HAN.test(name) ? dropped : canonicaliseParticles(dropped);
    const titled = stripPhrase(unstripped, tables.leadingTitles, false, tables) ?? unstripped;
    if (titled.join(' ') !== primary.join(' ')) bases.push(titled);
  }
  const forms = new Map<string, string[]>();
  for (const base of bases) {
    const split = unglued(base);
    for (const b of split ? [base, split] : [base]) for (const f of withNicknames(b)) forms.set(f.join(' '), f);
  }
  return [...forms.values()].slice(0, MAX_FORMS);
}

export function normaliseKey(name: string): string {
  return normaliseName(name).join(' ');
}
