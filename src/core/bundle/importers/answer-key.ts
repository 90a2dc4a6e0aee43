/**
 * Answer keys kept apart from the questions (Neural-MedBench publishes none):
 * a CSV/TSV or a JSON array with `case_id`, optional `question_number` and
 * answer fields. A row without `question_number` applies to every question
 * of its case; a row with one overrides it for that question.
 *
 * Fields: diagnosis, aliases, differential (ranked; `|` or `;` separated in
 * CSV, arrays in JSON), lesion_type, lesion_location, laterality, rationale,
 * disease_group (JSON may also nest `lesion: {type, location, laterality}`).
 */
import type { ErrorLocation } from '../../errors.ts';
import type { BenchCase, Laterality, ReferenceAnswer } from '../types.ts';
import { KeyLines } from './json-source.ts';
import { plural, readTable, type Issues } from './support.ts';

export interface KeyRow {
  readonly caseId: string;
  /** Absent: the row applies to every question of the case. */
  readonly questionNumber?: string;
  readonly reference: ReferenceAnswer;
  readonly diseaseGroup?: string;
  readonly location: ErrorLocation;
}

const LATERALITY: readonly Laterality[] = ['left', 'right', 'bilateral', 'midline'];

/** Splits a CSV list cell on `|` or `;`, trimming and dropping empty items. */
function splitList(cell: string): string[] {
  return cell
    .split(/[|;]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function text(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

function list(v: unknown): string[] | undefined {
  const items = Array.isArray(v) ? v.map(text).filter((s): s is string => s !== undefined) : typeof v === 'string' ? splitList(v) : [];
  return items.length ? items : undefined;
}

function sub(location: ErrorLocation, field: string): ErrorLocation {
  return { ...location, field: location.field ? `${location.field}.${field}` : field };
}

/** Builds one key row from loosely typed fields; returns undefined (with an error) when case_id is missing. */
function toKeyRow(fields: Record<string, unknown>, location: ErrorLocation, issues: Issues): KeyRow | undefined {
  const caseId = text(fields.case_id);
  if (!caseId) {
    issues.error('This answer-key row has no case_id.', sub(location, 'case_id'));
    return undefined;
  }
  const nested = typeof fields.lesion === 'object' && fields.lesion !== null ? (fields.lesion as Record<string, unknown>) : {};
  const type = text(fields.lesion_type) ?? text(nested.type);
  const where = text(fields.lesion_location) ?? text(nested.location);
  const latRaw = text(fields.laterality) ?? text(nested.laterality);
  let laterality: Laterality | undefined;
  if (latRaw) {
    const l = latRaw.toLowerCase() as Laterality;
    if (LATERALITY.includes(l)) laterality = l;
    else issues.warn(`Laterality "${latRaw}" is not one of ${LATERALITY.join(', ')}; it is left out.`, sub(location, 'laterality'));
  }
  const diagnosis = text(fields.diagnosis);
  const aliases = list(fields.aliases);
  const differential = list(fields.differential);
  const rationale = text(fields.rationale);
  const reference: ReferenceAnswer = {
    ...(diagnosis ? { diagnosis } : {}),
    ...(aliases ? { aliases } : {}),
    ...(differential ? { differential } : {}),
    ...(type || where || laterality ? { lesion: { ...(type ? { type } : {}), ...(where ? { location: where } : {}), ...(laterality ? { laterality } : {}) } } : {}),
    ...(rationale ? { rationale } : {}),
  };
  const questionNumber = text(fields.question_number);
  const diseaseGroup = text(fields.disease_group);
  return { caseId, ...(questionNumber ? { questionNumber } : {}), reference, ...(diseaseGroup ? { diseaseGroup } : {}), location };
}

/** Reads a CSV/TSV answer key. */
export function parseAnswerKeyTable(textContent: string, delimiter: ',' | '\t', file: string, issues: Issues): KeyRow[] {
  const table = readTable(textContent, delimiter, file, issues);
  if (!table.header.includes('case_id')) {
    issues.error('The answer key has no "case_id" column.', { file, line: 1, field: 'case_id' });
    return [];
  }
  const rows: KeyRow[] = [];
  for (const r of table.rows) {
    const row = toKeyRow(r.values, { file, line: r.line }, issues);
    if (row) rows.push(row);
  }
  return rows;
}

/** Reads a JSON answer key (an array of objects), locating rows by their `"case_id"` line. */
export function parseAnswerKeyJson(data: unknown, textContent: string, file: string, issues: Issues): KeyRow[] {
  if (!Array.isArray(data)) {
    issues.error('The answer key must be a JSON array of objects with "case_id".', { file });
    return [];
  }
  const lines = new KeyLines(textContent, 'case_id');
  const rows: KeyRow[] = [];
  data.forEach((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      issues.error(`Answer-key entry ${i} is not an object.`, { file, field: `[${i}]` });
      return;
    }
    const fields = entry as Record<string, unknown>;
    const id = text(fields.case_id);
    const line = id === undefined ? undefined : lines.take(id);
    const row = toKeyRow(fields, { file, ...(line === undefined ? {} : { line }), field: `[${i}]` }, issues);
    if (row) rows.push(row);
  });
  return rows;
}

/** Merges a case-wide reference with a question-specific one (the latter wins field by field). */
function mergeReference(base: ReferenceAnswer | undefined, specific: ReferenceAnswer | undefined): ReferenceAnswer | undefined {
  if (!base) return specific;
  if (!specific) return base;
  const lesion = base.lesion || specific.lesion ? { ...base.lesion, ...specific.lesion } : undefined;
  return { ...base, ...specific, ...(lesion ? { lesion } : {}) };
}

interface JoinContext {
  /** Ids of cases left out on purpose (placeholders): key rows for them get a clearer warning. */
  readonly skippedIds: ReadonlySet<string>;
  /** Answer-key file names, for the location of the summary warning. */
  readonly keyFiles: readonly string[];
}

/**
 * Joins key rows to cases on case_id (+ question_number). Returns the cases
 * with references filled in. Duplicate key rows are errors naming both
 * lines; rows matching nothing and cases without any key are warnings.
 */
export function applyAnswerKey(cases: readonly BenchCase[], rows: readonly KeyRow[], issues: Issues, ctx: JoinContext): BenchCase[] {
  const byCase = new Map<string, { all?: KeyRow; byQuestion: Map<string, KeyRow> }>();
  for (const row of rows) {
    let entry = byCase.get(row.caseId);
    if (!entry) byCase.set(row.caseId, (entry = { byQuestion: new Map() }));
    const prev = row.questionNumber === undefined ? entry.all : entry.byQuestion.get(row.questionNumber);
    if (prev) {
      const what = row.questionNumber === undefined ? `case "${row.caseId}"` : `case "${row.caseId}" question ${row.questionNumber}`;
      issues.error(`The answer key has two rows for ${what}: ${where(prev.location)} and ${where(row.location)}.`, row.location);
      continue;
    }
    if (row.questionNumber === undefined) entry.all = row;
    else entry.byQuestion.set(row.questionNumber, row);
  }

  const used = new Set<KeyRow>();
  let withoutKey = 0;
  const out = cases.map((c) => {
    const entry = byCase.get(c.id);
    if (!entry) {
      withoutKey++;
      return c;
    }
    const questions = c.questions.map((q) => {
      const specific = entry.byQuestion.get(q.id);
      if (specific) used.add(specific);
      if (entry.all) used.add(entry.all);
      const reference = mergeReference(mergeReference(q.reference, entry.all?.reference), specific?.reference);
      return reference && Object.keys(reference).length ? { ...q, reference } : q;
    });
    const diseaseGroup = entry.all?.diseaseGroup ?? [...entry.byQuestion.values()].find((r) => r.diseaseGroup)?.diseaseGroup;
    return { ...c, questions, ...(diseaseGroup ? { diseaseGroup } : {}) };
  });

  const caseIds = new Set(cases.map((c) => c.id));
  for (const row of rows) {
    if (used.has(row)) continue;
    const reason = ctx.skippedIds.has(row.caseId)
      ? `case "${row.caseId}" is a placeholder entry and was skipped`
      : caseIds.has(row.caseId)
        ? `case "${row.caseId}" has no question ${row.questionNumber ?? ''}`.trimEnd()
        : `there is no case "${row.caseId}"`;
    issues.warn(`This answer-key row matches no question: ${reason}.`, row.location);
  }
  if (withoutKey > 0 && rows.length > 0) {
    issues.warn(`${plural(withoutKey, 'case')} of ${cases.length} ${withoutKey === 1 ? 'has' : 'have'} no row in the answer key and will not be scored.`, { file: ctx.keyFiles.join(', ') });
  }
  return out;
}

function where(loc: ErrorLocation): string {
  return loc.line !== undefined ? `${loc.file ?? ''} line ${loc.line}`.trim() : `${loc.file ?? ''} ${loc.field ?? ''}`.trim();
}
