/**
 * NeuroVLM-Bench's ground truth is a closed label set: five classes, their
 * subtypes, two modalities, four MRI sequences, three planes (the benchmark's
 * prompt and index; docs/protocols.md). A label outside it cannot be what the
 * prompt asks a model to answer, so it is reported with file, line and field,
 * once per distinct value (a whole column of a typo is one warning, not
 * thousands). The case is still imported: an index with a new spelling is
 * worth reading, and the scorer handles it as it is.
 *
 * A label that starts like a spreadsheet formula (`=HYPERLINK(…)`, `+…`,
 * `-…`, `@…`) is refused instead: no real label starts that way, so it means
 * the index was tampered with, and it would execute if the labels were ever
 * opened in a spreadsheet by a tool less careful than NeuroEval's CSV export.
 */
import type { ErrorLocation } from '../errors.ts';
import { ABSTAIN, normaliseBase, SUBTYPES_BY_CLASS } from '../scoring/neurovlm/normalise.ts';
import { quoteValue, type Issues, type TableRow } from './support.ts';

const MODALITIES = ['MRI', 'CT'];
const SEQUENCES = ['FLAIR', 'T1', 'T2', 'T1C+'];
const PLANES = ['axial', 'sagittal', 'coronal'];
const CLASSES = Object.keys(SUBTYPES_BY_CLASS);
const ALL_SUBTYPES = [...new Set(Object.values(SUBTYPES_BY_CLASS).flat())];

/** Columns whose values are stored; the formula check covers them all, the label-set check only the labels. */
const STORED_TEXT_COLUMNS = ['class', 'subclass', 'modality', 'modality_subtype', 'plane', 'dataset', 'original_class'] as const;

const FORMULA_START = /^[=+\-@\t\r]/;

interface Finding {
  readonly severity: 'error' | 'warning';
  readonly message: (count: number) => string;
  readonly location: ErrorLocation;
  count: number;
}


function rows(count: number): string {
  return count > 1 ? ` (${count.toLocaleString('en')} rows with this value; the first is shown)` : '';
}

/** Collects label problems row by row, then reports each distinct one once. */
export class NeuroVlmLabelCheck {
  private readonly findings = new Map<string, Finding>();

  /** Checks one index row; `file` is the CSV's path. */
  row(file: string, row: TableRow): void {
    for (const field of STORED_TEXT_COLUMNS) {
      const raw = row.values[field];
      if (raw && FORMULA_START.test(raw)) {
        this.add('error', file, row.line, field, raw, (n) =>
          `${field} ${quoteValue(raw)} looks like a spreadsheet formula, not a NeuroVLM-Bench label; the index was altered, so it is refused${rows(n)}.`,
        );
      }
    }
    const cls = this.label(row, 'class');
    this.inSet(file, row, 'class', CLASSES, 'classes');
    const subtypes = cls !== null && CLASSES.includes(cls) ? SUBTYPES_BY_CLASS[cls]! : ALL_SUBTYPES;
    this.inSet(file, row, 'subclass', subtypes, cls !== null && CLASSES.includes(cls) ? `subtypes of "${cls}"` : 'subtypes');
    this.inSet(file, row, 'modality', MODALITIES, 'modalities');
    this.inSet(file, row, 'modality_subtype', SEQUENCES, 'sequences');
    this.inSet(file, row, 'plane', PLANES, 'planes');
  }

  /** Adds the collected findings to `issues`. */
  report(issues: Issues): void {
    for (const f of this.findings.values()) {
      if (f.severity === 'error') issues.error(f.message(f.count), f.location);
      else issues.warn(f.message(f.count), f.location);
    }
  }

  /** A cell as the scorer reads it (lower case, `_` as space), or null when empty or an abstention such as "n/a". */
  private label(row: TableRow, field: string): string | null {
    const value = normaliseBase(row.values[field] ?? '');
    return value === ABSTAIN ? null : value;
  }

  private inSet(file: string, row: TableRow, field: string, allowed: readonly string[], what: string): void {
    const value = this.label(row, field);
    const raw = (row.values[field] ?? '').trim();
    if (value === null || FORMULA_START.test(row.values[field] ?? '')) return;
    if (allowed.some((a) => normaliseBase(a) === value)) return;
    const list = allowed.length ? allowed.join(', ') : 'none';
    this.add('warning', file, row.line, field, raw, (n) =>
      `${field} ${quoteValue(raw)} is not one of NeuroVLM-Bench's ${what} (${list}); the case is imported, but the benchmark's prompt never offers this answer${rows(n)}.`,
    );
  }

  private add(severity: Finding['severity'], file: string, line: number, field: string, value: string, message: (count: number) => string): void {
    const key = `${severity}\u0000${file}\u0000${field}\u0000${value}`;
    const seen = this.findings.get(key);
    if (seen) seen.count++;
    else this.findings.set(key, { severity, message, location: { file, line, field }, count: 1 });
  }
}
