/**
 * Financial-crime context of a name mention. A keyword counts only inside a window of words around a
 * mention of the name, and only in the sense that makes it adverse: "sanctions" must be evaded,
 * violated or imposed on the person, not imposed on a country or on an athlete for doping; "fraud" in
 * an election-fraud claim is political speech, not a financial crime.
 */
export interface AdverseInformation {
  keyword: string;
  /** 0–1. */
  score: number;
}

interface Category {
  keyword: string;
  score: number;
  pattern: RegExp;
  /** Readings of the same words that are not adverse (the window around the keyword is tested). */
  innocent?: RegExp;
  /** The keyword counts only when this is near it too. */
  requires?: RegExp;
}

const CATEGORIES: Category[] = [
  { keyword: 'money laundering', score: 0.95, pattern: /\b(money[- ]laundering|launder(ed|ing|s)?)\b/ },
  { keyword: 'terrorism financing', score: 0.95, pattern: /\b(terror(ist|ism)? financ\w*|financ\w* (of )?terror\w*)\b/ },
  {
    keyword: 'sanctions evasion',
    score: 0.9,
    pattern: /\b(sanction(s|ed)?)\b/,
    requires: /\b(evad\w*|evasion|violat\w*|breach\w*|circumvent\w*|bust\w*|ofac|treasury|designated|blacklist\w*|asset freeze|frozen)\b/,
    innocent: /\b(dop\w*|athlet\w*|olympic\w*|wada|football|fifa|uefa|league|match|player|club|race)\b/,
  },
  {
    keyword: 'fraud',
    score: 0.9,
    pattern: /\b(fraud\w*|defraud\w*|ponzi|scam\w*|swindl\w*)\b/,
    innocent: /\b(election|electoral|voter|voting|ballot|vote)s?\b/,
  },
  { keyword: 'embezzlement', score: 0.9, pattern: /\b(embezzl\w*|misappropriat\w*|siphon\w*|looted|looting)\b/ },
  { keyword: 'bribery', score: 0.85, pattern: /\b(brib\w*|kickbacks?)\b/ },
  { keyword: 'corruption', score: 0.8, pattern: /\b(corrupt\w*|graft)\b/, innocent: /\b(data|file|memory|disk)\b/ },
  { keyword: 'tax evasion', score: 0.8, pattern: /\b(tax (evasion|fraud|dodg\w*)|evad\w* tax\w*)\b/ },
  { keyword: 'extortion', score: 0.75, pattern: /\b(extort\w*|racketeer\w*)\b/ },
  { keyword: 'trafficking', score: 0.7, pattern: /\b(traffick\w*|smuggl\w*)\b/ },
];

/** Legal-process words near the keyword make the allegation concrete. */
const PROCEEDINGS =
  /\b(convict\w*|charged|indict\w*|sentenc\w*|pleaded guilty|guilty|arrest\w*|prosecut\w*|accused|alleg\w*|investigat\w*)\b/;
const EXCULPATORY = /\b(acquitt\w*|cleared of|not guilty|exonerat\w*|pardon\w*|dismissed)\b/;

const WINDOW_WORDS = 30;
const KEYWORD_CONTEXT_WORDS = 8;

function windowAround(words: readonly string[], at: number, span: number): string {
  return words.slice(Math.max(0, at - span), at + span + 1).join(' ');
}

/**
 * Scores the financial-crime keywords within WINDOW_WORDS of any mention (word positions in `words`,
 * which are lower-cased, folded words of the article). Returns the best score per category.
 */
export function adverseContext(words: readonly string[], mentions: readonly number[]): AdverseInformation[] {
  const best = new Map<string, number>();
  for (const at of mentions) {
    const lo = Math.max(0, at - WINDOW_WORDS);
    const hi = Math.min(words.length, at + WINDOW_WORDS + 1);
    for (let i = lo; i < hi; i++) {
      for (const c of CATEGORIES) {
        if (!c.pattern.test(words.slice(i, i + 3).join(' '))) continue;
        const near = windowAround(words, i, KEYWORD_CONTEXT_WORDS);
        if (c.innocent?.test(near) || (c.requires && !c.requires.test(near))) continue;
        let score = c.score * (PROCEEDINGS.test(near) ? 1 : 0.85);
        if (EXCULPATORY.test(near)) score *= 0.5;
        // Closer keywords speak more surely about this person.
        score *= 1 - (0.5 * Math.abs(i - at)) / WINDOW_WORDS;
        if (score > (best.get(c.keyword) ?? 0)) best.set(c.keyword, score);
      }
    }
  }
  return [...best].map(([keyword, score]) => ({ keyword, score: Math.round(score * 100) / 100 })).sort((a, b) => b.score - a.score);
}
