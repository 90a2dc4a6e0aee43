/**
 * Multiple-choice scoring (docs/protocols.md#related-protocols).
 * - Accuracy: an unparsed answer (`pred` null) is wrong and also counted as
 *   *invalid* (VLMEvalKit convention).
 * - Paired "set" score (MediConfusion, arXiv 2409.15477): two images share
 *   one question and one pair of options but have different answers; a pair
 *   counts only if both items are correct. A pair is *confused* when the model
 *   picked the same option for both images (it did not tell them apart).
 * Compare options in one consistent form (the letter or the option text).
 * No items → NaN rates, never a thrown error.
 */

interface McqItem {
  readonly gold: string;
  /** The extracted option, or null when no answer could be parsed. */
  readonly pred: string | null;
}

interface McqAccuracy {
  readonly n: number;
  readonly correct: number;
  readonly invalid: number;
  readonly accuracy: number;
  readonly invalidRate: number;
}

/** Accuracy with the invalid (unparsed) count and rate. */
export function mcqAccuracy(items: readonly McqItem[]): McqAccuracy {
  const n = items.length;
  const correct = items.filter((i) => i.pred !== null && i.pred === i.gold).length;
  const invalid = items.filter((i) => i.pred === null).length;
  return { n, correct, invalid, accuracy: n === 0 ? NaN : correct / n, invalidRate: n === 0 ? NaN : invalid / n };
}

export interface McqPair {
  readonly first: McqItem;
  readonly second: McqItem;
}

interface PairedSetScore {
  readonly pairs: number;
  /** Pairs with both items correct. */
  readonly bothCorrect: number;
  /** bothCorrect ÷ pairs. */
  readonly setScore: number;
  /** Accuracy over all 2·pairs items. */
  readonly individualAccuracy: number;
  /** Pairs where the same (valid) option was chosen for both items. */
  readonly confused: number;
  readonly confusedRate: number;
  readonly invalid: number;
}

/** MediConfusion set score, individual accuracy and confusion count. */
export function pairedSetScore(pairs: readonly McqPair[]): PairedSetScore {
  const ok = (i: McqItem): boolean => i.pred !== null && i.pred === i.gold;
  let bothCorrect = 0;
  let correctItems = 0;
  let confused = 0;
  let invalid = 0;
  for (const { first, second } of pairs) {
    if (ok(first) && ok(second)) bothCorrect++;
    correctItems += (ok(first) ? 1 : 0) + (ok(second) ? 1 : 0);
    if (first.pred !== null && first.pred === second.pred) confused++;
    invalid += (first.pred === null ? 1 : 0) + (second.pred === null ? 1 : 0);
  }
  const n = pairs.length;
  return {
    pairs: n,
    bothCorrect,
    setScore: n === 0 ? NaN : bothCorrect / n,
    individualAccuracy: n === 0 ? NaN : correctItems / (2 * n),
    confused,
    confusedRate: n === 0 ? NaN : confused / n,
    invalid,
  };
}
