/**
 * Natural order for ids people read: `case_2` before `case_10`, as a person
 * would list them, instead of the code-unit order IndexedDB keys come back in.
 */
const COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });

/** Compares two ids in natural order (digit runs by value); equal only for equal strings. */
export function compareIds(a: string, b: string): number {
  // The code-unit tie-break keeps the order total: "a01" and "a1" collate equal.
  return COLLATOR.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** A copy of `items` in natural order of the id each one has. */
export function sortById<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  return [...items].sort((x, y) => compareIds(idOf(x), idOf(y)));
}
