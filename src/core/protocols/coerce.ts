/**
 * Type coercion for parsed answers: models write `"0.9"` for 0.9, `90` for a
 * 0–1 confidence, lists where a string was asked for. Each helper returns the
 * best reading and adds a warning instead of failing.
 */

/** Collects warnings while parsing one answer. */
export class Warnings {
  readonly list: string[] = [];
  add(message: string): void {
    if (!this.list.includes(message)) this.list.push(message);
  }
  /** `{ warnings }` when there are any, for spreading into a parse result. */
  get result(): { warnings?: readonly string[] } {
    return this.list.length ? { warnings: [...this.list] } : {};
  }
}

const NULLISH = new Set(['', 'null', 'none', 'n/a', 'na', 'nan', 'unknown', 'undetermined', '无', '不详']);

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** A number from a number or a numeric string (`"0.9"`, `"85%"`); null when absent or unreadable. */
export function coerceNumber(v: unknown, field: string, w: Warnings): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    w.add(`${field}: ${String(v)} is not a finite number; read as null`);
    return null;
  }
  if (typeof v === 'string') {
    const s = v.trim();
    if (NULLISH.has(s.toLowerCase())) return null;
    const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(%?)$/.exec(s);
    if (m) {
      const n = Number(m[1]) / (m[2] ? 100 : 1);
      w.add(`${field}: the string ${show(v)} was read as the number ${n}`);
      return n;
    }
  }
  w.add(`${field}: expected a number, got ${show(v)}; read as null`);
  return null;
}

/**
 * A confidence in [0, 1]. Percent-looking numbers (1 < x ≤ 100) are divided
 * by 100 with a warning; anything else outside [0, 1] is clipped with a warning.
 */
export function coerceConfidence(v: unknown, field: string, w: Warnings): number | null {
  const n = coerceNumber(v, field, w);
  if (n === null) return null;
  if (n > 1 && n <= 100) {
    w.add(`${field}: ${n} looks like a percentage; read as ${n / 100}`);
    return n / 100;
  }
  if (n < 0 || n > 1) {
    const clipped = Math.min(1, Math.max(0, n));
    w.add(`${field}: ${n} is outside [0, 1]; clipped to ${clipped}`);
    return clipped;
  }
  return n;
}

/** A trimmed string; numbers become strings, lists are joined with "; ", nullish words become null. */
export function coerceString(v: unknown, field: string, w: Warnings): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    const s = v.trim();
    return NULLISH.has(s.toLowerCase()) ? null : s;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    w.add(`${field}: expected text, got ${show(v)}`);
    return String(v);
  }
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
    const joined = v.map((x) => String(x).trim()).filter(Boolean).join('; ');
    return joined || null;
  }
  w.add(`${field}: expected text, got ${show(v)}; read as null`);
  return null;
}

/** A list of strings from an array (of strings or `{text}`-like objects) or a single string. */
export function coerceStringList(v: unknown, field: string, w: Warnings): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') {
    const s = v.trim();
    return s && !NULLISH.has(s.toLowerCase()) ? [s] : [];
  }
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const item of v) {
      const s = typeof item === 'object' && item !== null ? firstString(item as Record<string, unknown>) : coerceString(item, field, w);
      if (s) out.push(s);
      else if (item !== null) w.add(`${field}: an item without text was dropped`);
    }
    return out;
  }
  w.add(`${field}: expected a list, got ${show(v)}`);
  return [];
}

function firstString(o: Record<string, unknown>): string | null {
  for (const v of Object.values(o)) if (typeof v === 'string' && v.trim()) return v.trim();
  return null;
}

/** The value of the first key present, matching keys case-insensitively with `_`/`-`/space alike. */
export function pick(o: Readonly<Record<string, unknown>>, keys: readonly string[]): { key: string; value: unknown } | undefined {
  const norm = (k: string) => k.toLowerCase().replace(/[\s_-]+/g, '');
  const byNorm = new Map(Object.keys(o).map((k) => [norm(k), k] as const));
  for (const key of keys) {
    const actual = byNorm.get(norm(key));
    if (actual !== undefined) return { key: actual, value: o[actual] };
  }
  return undefined;
}
