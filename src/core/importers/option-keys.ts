/**
 * Option keys and answer keys of multiple-choice rows, read the way datasets
 * write them: option columns named `Choice A`, `option_B` or `A` give the
 * keys A, B…; a cell that repeats its key (`A:Dog`, `(B) Cat`) loses it; an
 * answer written as the option's text, or as `B:Cat`, becomes its key. Each
 * change is said once in the preview, so PMC-VQA's `Choice A…D` columns with
 * an `Answer_label` of `B` score as the benchmark means, and an answer that
 * still names no option is left for generic-scoring.ts to warn about.
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import type { QuestionOption } from '../bundle/types.ts';
import type { GenericMapping } from './generic-mapping.ts';
import { listCell, type Issues } from './support.ts';

/** `Choice A`, `option_b`, `opt-C`, `A` → the letter; other names stay as they are. */
export function keyOfColumn(column: string): string {
  const m = /(?:^|[\s_\-.])([A-Ja-j])$/.exec(column.trim());
  return m ? m[1]!.toUpperCase() : column;
}

/** The text of an option without a leading copy of its key (`A:Dog`, `A. Dog`, `(A) Dog` → `Dog`). */
function withoutKey(text: string, key: string): string {
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^\\s*\\(?${esc}\\)?\\s*[:.)：]\\s*`, 'i').exec(text);
  return m && m[0].length < text.length ? text.slice(m[0].length).trim() : text.trim();
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

export class OptionKeys {
  private renamed: { from: string; to: string }[] | null = null;
  private byText = 0;
  private firstByText: ErrorLocation | undefined;

  /** A row's options: one list column gives keys A, B, C…; option columns give their letters. */
  options(m: GenericMapping, values: Readonly<Record<string, unknown>>, text: (v: unknown) => string): QuestionOption[] {
    const columns = m.options ?? [];
    if (columns.length === 1) {
      const cell = values[columns[0]!];
      // MedXpertQA's options: one object {"A": "…", "B": "…"} whose keys are the option keys.
      const keyed = keyedOptions(cell, text);
      if (keyed) return keyed;
      const items = listCell(cell, '|', text);
      if (Array.isArray(cell) || items.length > 1) return items.map((t, i) => ({ key: String.fromCharCode(65 + i), text: withoutKey(t, String.fromCharCode(65 + i)) })).filter((o) => o.text !== '');
    }
    const keys = columns.map(keyOfColumn);
    // Letters only when every column gives a different one; otherwise the names stay keys.
    const useLetters = new Set(keys).size === keys.length;
    if (useLetters && this.renamed === null) this.renamed = columns.map((c, i) => ({ from: c, to: keys[i]! })).filter((r) => r.from !== r.to);
    return columns
      .map((c, i) => {
        const key = useLetters ? keys[i]! : c;
        return { key, text: withoutKey(text(values[c]), key) };
      })
      .filter((o) => o.text !== '');
  }

  /** The key an answer names: a key as written, `B:Cat`, or the text of exactly one option. */
  answerKey(written: string, options: readonly QuestionOption[], at: ErrorLocation): string {
    const direct = options.find((o) => same(o.key, written));
    if (direct) return direct.key;
    const prefixed = /^\s*\(?([A-Ja-j])\)?\s*[:.)：]/.exec(written);
    if (prefixed) {
      const o = options.find((x) => same(x.key, prefixed[1]!));
      if (o) return o.key;
    }
    const byText = options.filter((o) => same(o.text, written));
    if (byText.length === 1) {
      this.byText++;
      this.firstByText ??= at;
      return byText[0]!.key;
    }
    return written;
  }

  report(issues: Issues, m: GenericMapping, file: string): void {
    if (this.renamed?.length) {
      issues.warn(
        `Option columns ${this.renamed.map((r) => `"${r.from}"`).join(', ')} give the option keys ${this.renamed.map((r) => r.to).join(', ')}: answers are compared with these keys.`,
        { file, line: 1, field: this.renamed[0]!.from },
      );
    }
    if (this.byText && this.firstByText) {
      issues.warn(`${count(this.byText, 'answer')} in "${m.answer}" gave the text of an option rather than its key; each is stored as the key of that option.`, this.firstByText);
    }
  }
}

/** An options cell that is a JSON object of key → text, as options with those keys; undefined for anything else. */
function keyedOptions(cell: unknown, text: (v: unknown) => string): QuestionOption[] | undefined {
  let value = cell;
  if (typeof cell === 'string' && cell.trim().startsWith('{')) {
    try {
      value = JSON.parse(cell);
    } catch {
      return undefined;
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) return undefined;
  const out = Object.entries(value as Record<string, unknown>).map(([key, v]) => ({ key: key.trim(), text: text(v).trim() })).filter((o) => o.key !== '' && o.text !== '');
  return out.length ? out : undefined;
}
