/**
 * Answer keys kept apart from the questions (Neural-MedBench publishes none):
 * a CSV/TSV or a JSON array with `case_id`, optional `question_number` and
 * answer fields. A row without `question_number` applies to every question
 * of its case; a row with one overrides it for that question.
 *
 * Fields: diagnosis, aliases, differential (ranked; `|` or `;` separated in
 * CSV, arrays in JSON), lesion_type, lesion_location, laterality, rationale,
 * disease_group (JSON may also nest `lesion: {type, location, laterality}`),
 * and NeuroVLM-Bench's label fields (diagnosis_name, diagnosis_detailed,
 * modality, specialized_sequence, plane), which the structured protocol scores.
 *
 * Dialogues (multi-round cases) take an answer per turn: a `turn` column
 * (1 = the opening question), a JSON row's `turns: [{turn?, diagnosis, …}]`
 * (position gives the turn when `turn` is absent), or the `question_number`
 * of the round in the question file. A turn's answer overrides the
 * dialogue's field by field.
 */
import { count } from '../text/plural.ts';
import type { ErrorLocation } from '../errors.ts';
import type { BenchCase, Laterality, ReferenceAnswer } from '../bundle/types.ts';
import { KeyLines } from './json-source.ts';
import { readTable, type Issues } from './support.ts';
import type { AnswerKeyMatch } from '../bundle/importer.ts';

export interface KeyRow {
  readonly caseId: string;
  /** Absent: the row applies to every question of the case. */
  readonly questionNumber?: string;
  /** Turn of a dialogue (1 = the opening question); absent: the whole question. */
  readonly turn?: number;
  readonly reference: ReferenceAnswer;
  readonly diseaseGroup?: string;
  readonly location: ErrorLocation;
}

const LATERALITY: readonly Laterality[] = ['left', 'right', 'bilateral', 'midline'];
/** NeuroVLM-Bench's per-field labels (its CSV's column names), kept as `reference.labels`. */
const NEUROVLM_LABELS = ['diagnosis_name', 'diagnosis_detailed', 'modality', 'specialized_sequence', 'plane'] as const;

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
  const labels = Object.fromEntries(NEUROVLM_LABELS.flatMap((k) => (text(fields[k]) === undefined ? [] : [[k, text(fields[k])!]])));
  const reference: ReferenceAnswer = {
    ...(diagnosis ? { diagnosis } : {}),
    ...(aliases ? { aliases } : {}),
    ...(differential ? { differential } : {}),
    ...(type || where || laterality ? { lesion: { ...(type ? { type } : {}), ...(where ? { location: where } : {}), ...(laterality ? { laterality } : {}) } } : {}),
    ...(rationale ? { rationale } : {}),
    ...(Object.keys(labels).length ? { labels } : {}),
  };
  const questionNumber = text(fields.question_number);
  const diseaseGroup = text(fields.disease_group);
  const turnRaw = text(fields.turn);
  let turn: number | undefined;
  if (turnRaw !== undefined) {
    if (!/^[1-9]\d*$/.test(turnRaw)) {
      issues.error(`The turn must be a whole number from 1 (the opening question); got "${turnRaw}".`, sub(location, 'turn'));
      return undefined;
    }
    turn = Number(turnRaw);
  }
  return { caseId, ...(questionNumber ? { questionNumber } : {}), ...(turn !== undefined ? { turn } : {}), reference, ...(diseaseGroup ? { diseaseGroup } : {}), location };
}

/** A JSON row's `turns` list: one row per turn, the turn from `turn` or the position. */
function turnRows(fields: Record<string, unknown>, location: ErrorLocation, issues: Issues): KeyRow[] {
  const turns = fields.turns;
  if (turns === undefined || turns === null) return [];
  if (!Array.isArray(turns)) {
    issues.error('"turns" must be a list of answers, one per turn of the dialogue.', sub(location, 'turns'));
    return [];
  }
  return turns.flatMap((t: unknown, j) => {
    const at = sub(location, `turns[${j}]`);
    if (typeof t !== 'object' || t === null || Array.isArray(t)) {
      issues.error(`Turn ${j + 1} of this answer-key row is not an object.`, at);
      return [];
    }
    const own = t as Record<string, unknown>;
    const row = toKeyRow({ ...own, case_id: fields.case_id, question_number: fields.question_number, turn: own.turn ?? j + 1 }, at, issues);
    return row ? [row] : [];
  });
}

/** Whether a JSON row carries answer fields of its own (beside its `turns`). */
function hasOwnAnswer(row: KeyRow): boolean {
  return Object.keys(row.reference).length > 0 || row.diseaseGroup !== undefined;
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
    const location = { file, ...(line === undefined ? {} : { line }), field: `[${i}]` };
    const { turns, ...own } = fields;
    const row = toKeyRow(own, location, issues);
    const perTurn = turns === undefined ? [] : turnRows(fields, location, issues);
    // A row that only groups its turns answers nothing itself.
    if (row && (turns === undefined || hasOwnAnswer(row))) rows.push(row);
    rows.push(...perTurn);
  });
  return rows;
}

/** Merges a case-wide reference with a question-specific one (the latter wins field by field). */
function mergeReference(base: ReferenceAnswer | undefined, specific: ReferenceAnswer | undefined): ReferenceAnswer | undefined {
  if (!base) return specific;
  if (!specific) return base;
  const lesion = base.lesion || specific.lesion ? { ...base.lesion, ...specific.lesion } : undefined;
  const labels = base.labels || specific.labels ? { ...base.labels, ...specific.labels } : undefined;
  return { ...base, ...specific, ...(lesion ? { lesion } : {}), ...(labels ? { labels } : {}) };
}

interface JoinContext {
  /** Ids of cases left out on purpose (placeholders): key rows for them get a clearer warning. */
  readonly skippedIds: ReadonlySet<string>;
  /** Answer-key file names, for the location of the summary warning. */
  readonly keyFiles: readonly string[];
}

/** What a row names, for messages: `case "c" question 2 turn 3`. */
function describeRow(row: KeyRow): string {
  return [`case "${row.caseId}"`, row.questionNumber === undefined ? '' : `question ${row.questionNumber}`, row.turn === undefined ? '' : `turn ${row.turn}`].filter(Boolean).join(' ');
}

/**
 * Where a row's answer goes in its case: `case` (every question), `q<i>`
 * (question i, or its opening turn), `q<i>f<j>` (follow-up j of dialogue i).
 * A string that does not start with `case` or `q` is why it matches nothing.
 */
function targetOf(c: BenchCase, row: KeyRow): { key: string } | { reason: string } {
  if (row.questionNumber === undefined && row.turn === undefined) return { key: 'case' };
  let qi: number;
  if (row.questionNumber !== undefined) {
    qi = c.questions.findIndex((q) => q.id === row.questionNumber);
    if (qi < 0) {
      // A round of a dialogue keeps its question_number as the follow-up's id.
      for (let i = 0; i < c.questions.length && qi < 0; i++) {
        const fi = c.questions[i]!.followUps?.findIndex((f) => f.id === row.questionNumber) ?? -1;
        if (fi < 0) continue;
        if (row.turn !== undefined && row.turn !== fi + 2) return { reason: `question ${row.questionNumber} of case "${c.id}" is turn ${fi + 2} of its dialogue, not turn ${row.turn}` };
        return { key: `q${i}f${fi}` };
      }
      return { reason: `case "${c.id}" has no question ${row.questionNumber}` };
    }
  } else {
    const dialogues = c.questions.flatMap((q, i) => (q.followUps?.length ? [i] : []));
    qi = c.questions.length === 1 ? 0 : dialogues.length === 1 ? dialogues[0]! : -1;
    if (qi < 0) return { reason: `case "${c.id}" has ${c.questions.length} questions; say which with question_number` };
  }
  if (row.turn === undefined || row.turn === 1) return { key: `q${qi}` };
  const q = c.questions[qi]!;
  const turns = 1 + (q.followUps?.length ?? 0);
  if (row.turn > turns) return { reason: `question ${q.id} of case "${c.id}" has ${turns === 1 ? 'one turn' : `${turns} turns`}, not ${row.turn}` };
  return { key: `q${qi}f${row.turn - 2}` };
}

/** Joins one case's rows (already resolved to targets) into its questions and follow-ups. */
function joinCase(c: BenchCase, targets: ReadonlyMap<string, KeyRow>): BenchCase {
  const all = targets.get('case');
  const questions = c.questions.map((q, qi) => {
    const reference = mergeReference(mergeReference(q.reference, all?.reference), targets.get(`q${qi}`)?.reference);
    const followUps = q.followUps?.map((f, fi) => {
      const own = targets.get(`q${qi}f${fi}`);
      // A turn's answer overrides the dialogue's field by field; a turn without one keeps falling back to it.
      return own ? { ...f, reference: mergeReference(mergeReference(reference, f.reference), own.reference)! } : f;
    });
    return { ...q, ...(reference && Object.keys(reference).length ? { reference } : {}), ...(followUps ? { followUps } : {}) };
  });
  const rows = [...targets.values()];
  const diseaseGroup = all?.diseaseGroup ?? rows.find((r) => r.diseaseGroup)?.diseaseGroup;
  return { ...c, questions, ...(diseaseGroup ? { diseaseGroup } : {}) };
}


/**
 * Joins key rows to cases on case_id (+ question_number, + turn). Returns the
 * cases with references filled in. Two rows for the same question or turn
 * are errors naming both lines; rows matching nothing and cases without any
 * key are warnings.
 */
export function applyAnswerKey(cases: readonly BenchCase[], rows: readonly KeyRow[], issues: Issues, ctx: JoinContext): BenchCase[] {
  return joinAnswerKey(cases, rows, issues, ctx).cases;
}

/** {@link applyAnswerKey}, also saying which cases and rows matched. */
export function joinAnswerKey(cases: readonly BenchCase[], rows: readonly KeyRow[], issues: Issues, ctx: JoinContext): { cases: BenchCase[]; match: AnswerKeyMatch } {
  const byCase = new Map<string, KeyRow[]>();
  for (const row of rows) {
    const list = byCase.get(row.caseId);
    if (list) list.push(row);
    else byCase.set(row.caseId, [row]);
  }
  const unmatched = new Map<KeyRow, string>();
  const withoutKey: string[] = [];
  let matchedCases = 0;
  const out = cases.map((c) => {
    const list = byCase.get(c.id);
    byCase.delete(c.id);
    if (!list) {
      withoutKey.push(c.id);
      return c;
    }
    const targets = new Map<string, KeyRow>();
    for (const row of list) {
      const t = targetOf(c, row);
      if ('reason' in t) {
        unmatched.set(row, t.reason);
        continue;
      }
      const prev = targets.get(t.key);
      if (prev) {
        issues.error(`The answer key has two rows for ${describeRow(prev)}${describeRow(prev) === describeRow(row) ? '' : ` (also given as ${describeRow(row)})`}: ${where(prev.location)} and ${where(row.location)}.`, row.location);
        continue;
      }
      targets.set(t.key, row);
    }
    if (targets.size > 0) matchedCases++;
    return joinCase(c, targets);
  });

  for (const [caseId, list] of byCase) {
    const reason = ctx.skippedIds.has(caseId) ? `case "${caseId}" is a placeholder entry and was skipped` : `there is no case "${caseId}"`;
    for (const row of list) unmatched.set(row, reason);
  }
  const unmatchedRows: string[] = [];
  for (const row of rows) {
    const reason = unmatched.get(row);
    if (!reason) continue;
    issues.warn(`This answer-key row matches no question: ${reason}.`, row.location);
    unmatchedRows.push(`${where(row.location)}: ${reason}`);
  }
  if (withoutKey.length > 0 && rows.length > 0) {
    issues.warn(`${count(withoutKey.length, 'case')} of ${cases.length} ${withoutKey.length === 1 ? 'has' : 'have'} no row in the answer key and will not be scored.`, { file: ctx.keyFiles.join(', ') });
  }
  return { cases: out, match: { files: ctx.keyFiles, rows: rows.length, cases: cases.length, matchedCases, casesWithoutKey: withoutKey, unmatchedRows } };
}

function where(loc: ErrorLocation): string {
  return loc.line !== undefined ? `${loc.file ?? ''} line ${loc.line}`.trim() : `${loc.file ?? ''} ${loc.field ?? ''}`.trim();
}
