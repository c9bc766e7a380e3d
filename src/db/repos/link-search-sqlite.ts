// SQLite's side of the dashboard's link search: the trigram search index (links_search), the
// index of one- and two-character grams (links_short_grams), and the LIKE patterns that find
// what they find, case folded as the index folds it.
import type { Knex } from 'knex';
import { likeEscape, type Column } from './link-search-columns.ts';

/**
 * The FTS5 query of SQLite's links_search (migration 20261125000000) that finds the links holding
 * `text`: one quoted phrase, which on a trigram table is a substring match in any one column,
 * with case folded over all of Unicode by the tokenizer (case_sensitive 0). None for text of
 * fewer than three characters (it has no trigram), nor for text with NUL.
 */
export function ftsPhrase(text: string): string | null {
  if (text.includes('\u0000') || [...text].length < 3) return null;
  return `"${text.replaceAll('"', '""')}"`;
}

/** Matches of a trigram read to judge how common it is. */
const TRIGRAM_SAMPLE = 256;
/** Trigrams of a long text judged at most (spread over it), and how many of them are asked. */
const TRIGRAMS_JUDGED = 12;
const TRIGRAMS_ASKED = 3;

/**
 * The FTS5 query of links_search for the candidates of `text` when each candidate's columns are
 * then checked with exactLikePatterns (which hold for exactly what the phrase finds): the
 * rarest few of its trigrams, all of them in one link, in `columns` (`{slug title} : (...)`).
 * Any set of the text's trigrams finds every link the phrase does, so the LIKE keeps the answer
 * the phrase's. The phrase itself reads every trigram's list with its positions: over a million
 * links a text of common trigrams ("spring sale": "ing" is in a third of them) cost it 70 ms,
 * three rare ones 13 ms and the rows they lead to (bench/dashboard.ts).
 *
 * SQLite keeps no statistics of the index, so each trigram's first TRIGRAM_SAMPLE matches are
 * read, in rowid (link seq) order: one with fewer matches in all is rarer than any that has
 * more, and of those, the one whose sample spans more links is. Null for a text of one trigram
 * (the phrase is that trigram).
 */
export async function rareTrigramMatch(knex: Knex, text: string, columnFilter: string): Promise<string | null> {
  const chars = [...text];
  const all = [...new Set(chars.slice(2).map((_, i) => chars.slice(i, i + 3).join('')))];
  if (all.length <= 1) return null;
  const judged =
    all.length <= TRIGRAMS_JUDGED
      ? all
      : Array.from({ length: TRIGRAMS_JUDGED }, (_, i) => all[Math.floor((i * all.length) / TRIGRAMS_JUDGED)]);
  const quoted = (t: string) => `"${t.replaceAll('"', '""')}"`;
  const rarity: Array<{ t: string; full: boolean; n: number; span: number }> = [];
  for (const t of judged) {
    const rows: Array<{ rowid: number }> = await knex.raw(
      'SELECT rowid FROM links_search WHERE links_search MATCH ? LIMIT ?',
      [`${columnFilter}${quoted(t)}`, TRIGRAM_SAMPLE],
    );
    const n = rows.length;
    rarity.push({ t, full: n < TRIGRAM_SAMPLE, n, span: n ? Number(rows[n - 1].rowid) - Number(rows[0].rowid) : 0 });
  }
  rarity.sort((a, b) => (a.full !== b.full ? (a.full ? -1 : 1) : a.full ? a.n - b.n : b.span - a.span));
  const asked = rarity.slice(0, TRIGRAMS_ASKED).map((r) => quoted(r.t));
  return `${columnFilter}(${asked.join(' AND ')})`;
}

/** Non-ASCII characters the search index folds onto an ASCII letter (ASCII_FOLD_TARGETS). */
const FOLDED_ONTO_ASCII: Record<string, string> = { k: '\u212a', s: '\u017f' };

/**
 * Variants of a character SQLite's LIKE must be given to match as the search index does: LIKE
 * folds ASCII letters only.
 */
function caseVariants(c: string): string[] {
  if (c.charCodeAt(0) < 0x80) {
    const other = FOLDED_ONTO_ASCII[c.toLowerCase()];
    return other ? [c, other] : [c];
  }
  const out = new Set([c]);
  // Only foldings that keep one character (ß → SS is no match on either engine).
  for (const v of [c.toLowerCase(), c.toUpperCase()]) if ([...v].length === 1) out.add(v);
  return [...out];
}

/**
 * LIKE patterns, taken together case-insensitive over Unicode, for text too short for the search
 * index (one or two characters: at most four patterns).
 */
export function shortTextPatterns(text: string): string[] {
  let patterns = [''];
  for (const c of text) patterns = patterns.flatMap((p) => caseVariants(c).map((v) => p + likeEscape(v)));
  return patterns.map((p) => `%${p}%`);
}

/**
 * The MATCH of SQLite's links_short_grams (migration 20261127000000) that finds the links holding
 * text of one or two characters: any of its forms' grams, in hex. The index keeps the grams as
 * written, so each character is asked in each of its cases: those of caseVariants (as the LIKE of
 * shortTextPatterns asks), and every ASCII letter among them in both cases. None for other lengths
 * and for NUL.
 */
export function shortGramMatch(text: string): string | null {
  const chars = [...text];
  if (chars.length < 1 || chars.length > 2 || text.includes('\u0000')) return null;
  // caseVariants with each ASCII letter among them in both cases (the Kelvin sign: K, k and K).
  const cases = (c: string) => [
    ...new Set(caseVariants(c).flatMap((v) => (/^[A-Za-z]$/.test(v) ? [v.toLowerCase(), v.toUpperCase()] : [v]))),
  ];
  let forms = [''];
  for (const c of chars) forms = forms.flatMap((f) => cases(c).map((v) => f + v));
  return forms.map((f) => `"${Buffer.from(f, 'utf8').toString('hex')}"`).join(' OR ');
}

/**
 * SQLite, a query that does not start from its search index: the search index, or for one or two
 * characters LIKE with the case variants of each non-ASCII character (see whereText).
 */
export function sqliteWhereText(q: Knex.QueryBuilder, knex: Knex, text: string, columns: Column[]): void {
  const phrase = ftsPhrase(text);
  if (phrase) {
    // A walk in the list's order: FTS5 checks one link at a time (correlated on the rowid), which
    // is slow per link, so a LIKE that holds for every match first keeps it to the likely ones.
    // Where a few LIKE patterns find what the index finds, and nothing else, the index need not
    // check at all (bench/dashboard.ts measures both).
    const exact = exactLikePatterns(text);
    if (exact) {
      whereLike(q, columns, exact);
      return;
    }
    whereLike(q, columns, [phraseLikeSuperset(text)]);
    q.whereExists((e) =>
      e
        .select(knex.raw('1'))
        .from('links_search as s')
        .whereRaw('s.rowid = l.seq')
        .whereRaw('s.links_search MATCH ?', [phrase]),
    );
    return;
  }
  whereLike(q, columns, shortTextPatterns(text));
}

/** Any of the columns LIKE any of the patterns (SQLite: LIKE folds ASCII case itself). */
function whereLike(q: Knex.QueryBuilder, columns: Column[], patterns: string[]): void {
  q.where((w) => {
    for (const col of columns) for (const p of patterns) w.orWhereRaw(`${col.sql} LIKE ? ESCAPE '\\'`, [p]);
  });
}

/**
 * Where FTS5's case folding (trigram, case_sensitive 0) maps a character other than the ASCII
 * case pair onto an ASCII one: the Kelvin sign onto k, the long s onto s. Found by indexing every
 * code point; the only other classes with a member JavaScript calls caseless are U+FFFD-U+FFFF.
 */
const ASCII_FOLD_TARGETS = new Set(['k', 'K', 's', 'S']);

/**
 * A LIKE pattern every link that `ftsPhrase(text)` finds also matches, in the same column: a
 * character that other characters fold onto becomes `_` (one character, as FTS5 folds one code
 * point to one); the rest stand for themselves, ASCII letters folded by LIKE.
 */
export function phraseLikeSuperset(text: string): string {
  let p = '';
  for (const c of text) p += standsAlone(c) ? likeEscape(c) : '_';
  return `%${p}%`;
}

/** A character the index folds nothing onto but its ASCII case pair (LIKE folds that too). */
function standsAlone(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x80
    ? !ASCII_FOLD_TARGETS.has(c)
    : c.toLowerCase() === c && c.toUpperCase() === c && (code < 0xfffd || code > 0xffff);
}

/**
 * Whether phraseLikeSuperset(text) holds for exactly the links the index finds: every character
 * stands alone (none became `_`). The two then fold the same characters (ASCII case) and match
 * a substring of one column.
 */
export function likeIsExact(text: string): boolean {
  return [...text].every(standsAlone);
}

/** Patterns a walk checks at most, in each column, instead of asking the index. */
const MAX_EXACT_PATTERNS = 8;

/**
 * LIKE patterns that, taken together, hold for exactly the links the index finds (`ftsPhrase`),
 * or null when there is no short set. Where likeIsExact: phraseLikeSuperset alone. ASCII text
 * with a k or an s, which the index also finds written as the Kelvin sign or the long s (the only
 * characters it folds onto ASCII ones: ASCII_FOLD_TARGETS): one pattern per choice, for each such
 * letter, of the letter or its sign, up to MAX_EXACT_PATTERNS (LIKE folds the ASCII case itself).
 */
export function exactLikePatterns(text: string): string[] | null {
  if (likeIsExact(text)) return [phraseLikeSuperset(text)];
  if (!/^[\u0000-\u007f]*$/.test(text)) return null;
  let patterns = [''];
  for (const c of text) {
    const sign = FOLDED_ONTO_ASCII[c.toLowerCase()];
    patterns = patterns.flatMap((p) => (sign ? [p + c, p + sign] : [p + likeEscape(c)]));
    if (patterns.length > MAX_EXACT_PATTERNS) return null;
  }
  return patterns.map((p) => `%${p}%`);
}
