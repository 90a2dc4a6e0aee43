/**
 * Counted nouns and verbs for sentences people read: "1 run", "2 runs",
 * "1 verdict differs", "3 verdicts differ". English only, like the app's text.
 */

/** The word that agrees with `n`: `one` for exactly 1, else `many` (default: `one` + "s"). */
export function plural(n: number, one: string, many: string = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and the agreeing noun, with thousands separated: "1 run", "1,204 answers". */
export function count(n: number, one: string, many?: string): string {
  return `${n.toLocaleString('en')} ${plural(n, one, many)}`;
}
