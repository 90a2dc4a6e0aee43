/**
 * SQuAD answer normalisation, exact match and token F1, as in the official
 * SQuAD v2.0 evaluation script (`evaluate-v2.0.py`: `normalize_answer`,
 * `compute_exact`, `compute_f1`), with the maximum taken over several
 * reference answers (`metric_max_over_ground_truths`).
 *
 * Normalisation: lower-case → remove ASCII punctuation (`string.punctuation`)
 * → replace the whole words a/an/the with a space → collapse whitespace.
 * Token F1 counts the multiset overlap of whitespace tokens. When either side
 * normalises to no tokens, F1 is 1 if both are empty and 0 otherwise (v2.0;
 * v1.1 returned 0 for two empty answers).
 */

// Python's string.punctuation: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python 3 `\b` is Unicode-aware: a word character is a letter, digit or underscore.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** SQuAD `normalize_answer`. */
export function normalizeAnswer(text: string): string {
  const noPunct = text.toLowerCase().replace(PUNCTUATION, '');
  return noPunct.replace(ARTICLES, ' ').split(/\s+/).filter((t) => t.length > 0).join(' ');
}

function tokens(text: string): string[] {
  const normalized = normalizeAnswer(text);
  return normalized === '' ? [] : normalized.split(' ');
}

/** 1 when the normalised strings are equal, else 0. */
export function exactMatch(prediction: string, reference: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(reference) ? 1 : 0;
}

/** Token-level F1 between one prediction and one reference. */
export function tokenF1(prediction: string, reference: string): number {
  const pred = tokens(prediction);
  const gold = tokens(reference);
  if (pred.length === 0 || gold.length === 0) return pred.length === gold.length ? 1 : 0;
  const goldCounts = new Map<string, number>();
  for (const t of gold) goldCounts.set(t, (goldCounts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pred) {
    const c = goldCounts.get(t) ?? 0;
    if (c > 0) {
      same++;
      goldCounts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pred.length;
  const recall = same / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

interface SquadScore {
  readonly exactMatch: number;
  readonly f1: number;
}

/**
 * Best exact match and best F1 over the references (each maximised on its
 * own, as the SQuAD script does). No references → `null` (not scorable).
 */
export function squadScore(prediction: string, references: readonly string[]): SquadScore | null {
  if (references.length === 0) return null;
  let em = 0;
  let f1 = 0;
  for (const ref of references) {
    em = Math.max(em, exactMatch(prediction, ref));
    f1 = Math.max(f1, tokenF1(prediction, ref));
  }
  return { exactMatch: em, f1 };
}
