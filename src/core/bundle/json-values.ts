/**
 * Checks of values read from JSON that JSON itself lets through: a number
 * too large for a double (`1e400`) parses as Infinity, which no stored field
 * can hold and the content hash refuses; and identifiers that look alike but
 * differ (`case1` and `case\u200b1`, `case\u202e1gpj.exe`), which would be
 * two cases to NeuroEval and one to a reader.
 */

/** The field path (`ehr.age`, `images[0].slice`) of the first number in `value` that is not finite, or null. */
export function nonFiniteField(value: unknown, path = ''): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFiniteField(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = nonFiniteField(v, path ? `${path}.${k}` : k);
      if (found !== null) return found;
    }
  }
  return null;
}

/** What a message says about a number that is not finite at `field`. */
export function nonFiniteMessage(field: string): string {
  return `${field ? `"${field}"` : 'The value'} is a number too large to store (it reads as infinity, as 1e400 does); write a smaller number, or the value as text.`;
}

/** Control (C0, C1), format (zero-width, bidi embeddings, overrides and isolates) and line or paragraph separators. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

function codePointName(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** An id as a message shows it: its invisible characters written as \u{…}, so the reader sees them. */
export function visibleId(id: string): string {
  return [...id].map((ch) => (INVISIBLE.test(ch) ? `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}` : ch)).join('');
}

/**
 * A case id as stored: NFC (so é typed two ways is one id), or why it is
 * refused: control, format (zero-width, bidi) and separator characters make
 * ids that look the same or spell something else on screen.
 */
export function checkCaseId(id: string): { id: string } | { error: string } {
  const bad = [...id].find((ch) => INVISIBLE.test(ch));
  if (bad !== undefined) {
    return { error: `Case id "${visibleId(id)}" holds an invisible or control character (${codePointName(bad)}), which makes it look like another id or read differently on screen; remove it.` };
  }
  return { id: id.normalize('NFC') };
}
