/**
 * Any CSV/TSV, JSONL, JSON array or Parquet file with a column mapping chosen
 * by the user (see generic-mapping.ts); table-source.ts reads the layouts and
 * data-files.ts picks the split. Image cells (image-cells.ts) hold
 * Hugging Face image structs `{bytes, path}`, paths relative to the picked
 * folder or into a ZIP among the inputs (matched as in path-match.ts: exact,
 * else one folder offset for the whole import), data URIs, base64, or lists
 * of them. Rows whose image file is missing are skipped with the reason. What
 * the mapping means for scoring (class labels, references no protocol of the
 * cases reads) is checked in generic-scoring.ts.
 */
import type { ErrorLocation } from '../errors.ts';
import { TASK_FAMILIES, type CaseImage, type QuestionOption, type ReferenceAnswer, type ReferenceBox, type RubricItem, type TaskDeclaration, type TaskFamily } from '../bundle/types.ts';
import { validateTaskDeclaration } from '../bundle/validate.ts';
import { parseBoxes } from '../protocols/answers/box-parse.ts';
import { chooseDataFiles } from './data-files.ts';
import { mappedColumns, parseMapping, ROW_NUMBER, suggestMapping, type GenericMapping } from './generic-mapping.ts';
import { ClassLabels, warnUnscored } from './generic-scoring.ts';
import { dataUriImage, identifyImage } from './image-data.ts';
import { imageCells, pathRefs } from './image-cells.ts';
import { extensionOf, type Importer, type InputFile } from '../bundle/importer.ts';
import { OptionKeys } from './option-keys.ts';
import { PathImages } from './path-images.ts';
import { openTable, DATA_EXTENSIONS, type Row, type TableSource } from './table-source.ts';
import { CaseIds, Issues, Ticker, draftManifest, expandZips, guessCjkLang, listCell, newParts, quoteValue, safeSegment, stem, stringOption, toDraft, type DraftParts } from './support.ts';

export { suggestMapping, type GenericMapping };

/** Column names for the mapping form: a CSV header, the keys of the first 100 JSON rows, or a Parquet schema's top-level columns. */
export async function listColumns(files: readonly InputFile[], wanted: { file?: string; split?: string } = {}): Promise<string[]> {
  const chosen = chooseDataFiles(await expandZips(files, {}), wanted);
  const first = 'error' in chosen ? undefined : chosen.files[0];
  return first ? [...(await openTable(first, new Issues(), true)).columns] : [];
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return `(${v.length} bytes)`;
  return JSON.stringify(v);
}

function imageColumns(m: GenericMapping): string[] {
  return typeof m.image === 'string' ? [m.image] : [...(m.image ?? [])];
}

/** Every path an image column names in the file (read once, so one folder offset is chosen for all). */
async function allPathRefs(source: TableSource, columns: readonly string[]): Promise<string[]> {
  // Parquet image structs carry their bytes; reading them twice to find paths is not worth it.
  const wanted = columns.filter((c) => source.shapes?.get(c) !== 'struct');
  if (!wanted.length) return [];
  const refs: string[] = [];
  for await (const batch of source.batches(wanted)) for (const row of batch) for (const c of wanted) refs.push(...pathRefs(row.values[c]));
  return refs;
}

export const genericImporter: Importer = {
  kind: 'generic',
  label: 'CSV, JSONL, JSON or Parquet with a column mapping',

  async detect(files) {
    return files.some((f) => DATA_EXTENSIONS.has(extensionOf(f.path)) && extensionOf(f.path) !== 'json') ? 0.3 : files.some((f) => extensionOf(f.path) === 'json') ? 0.2 : 0;
  },

  async read(inputs, ctx) {
    const issues = new Issues();
    const parts = newParts();
    const files = await expandZips(inputs, ctx);
    const chosen = chooseDataFiles(files, { file: stringOption(ctx, 'file'), split: stringOption(ctx, 'split') });
    const dataFiles = 'error' in chosen ? [] : chosen.files;
    const name = stem(dataFiles[0]?.path ?? 'generic');
    const task = declaredTask(ctx.options?.task, dataFiles[0]?.path ?? inputs[0]?.path ?? '', issues);
    const manifest = draftManifest(ctx, {
      id: name, name, version: '1', license: 'unknown', source: { kind: 'generic', files: dataFiles.map((f) => f.path) }, ...(task ? { protocolDefaults: { task } } : {}),
    });
    const parsed = parseMapping(ctx.options?.mapping);
    if ('error' in chosen) {
      issues.error(chosen.error, { file: inputs[0]?.path ?? '', field: 'split' });
      return toDraft(manifest, parts, issues);
    }
    if (!parsed.mapping) {
      issues.error(parsed.error ?? 'Choose which columns hold the case id and the question (and, if present, images, answers and options).', { file: dataFiles[0]!.path, field: 'mapping' });
      return toDraft(manifest, parts, issues);
    }
    const m = parsed.mapping;
    const ids = new CaseIds(issues);
    const classes = new ClassLabels();
    const keys = new OptionKeys();
    for (const file of dataFiles) {
      const source = await openTable(file, issues);
      const known = new Set(source.columns);
      const absent = mappedColumns(m).filter((c) => !known.has(c.column));
      for (const a of absent) issues.error(`The mapping uses column "${a.column}" for ${a.field}, but ${file.path} has no such column.`, { file: file.path, line: 1, field: a.column });
      if (absent.length) continue;
      const paths = new PathImages(files, await allPathRefs(source, imageColumns(m)), issues, parts);
      const ticker = new Ticker(ctx, source.rowCount);
      for await (const batch of source.batches()) {
        for (const row of batch) {
          await ticker.step();
          await readRow(row, source, m, { issues, parts, ids, classes, keys, paths, split: chosen.split, rowPrefix: dataFiles.length > 1 ? `${stem(file.path)}-` : '' });
        }
      }
      ticker.finish();
      paths.report();
    }
    classes.report(issues);
    keys.report(issues, m, dataFiles[0]!.path);
    warnUnscored(parts.cases, m, dataFiles[0]!.path, issues, manifest.protocolDefaults);
    return toDraft(manifest, parts, issues);
  },
};

/** The task the import form declares (answer type, prompt, scorer settings), checked as a bundle's is; undefined when none or not valid. */
function declaredTask(raw: unknown, file: string, issues: Issues): TaskDeclaration | undefined {
  if (raw === undefined || raw === null) return undefined;
  const problems = validateTaskDeclaration(raw, file);
  issues.list.push(...problems);
  return problems.some((p) => p.severity === 'error') ? undefined : (raw as TaskDeclaration);
}

interface RowContext {
  readonly issues: Issues;
  readonly parts: DraftParts;
  readonly ids: CaseIds;
  readonly classes: ClassLabels;
  readonly keys: OptionKeys;
  readonly paths: PathImages;
  /** The split the chosen files belong to, for cases whose row names none. */
  readonly split: string | undefined;
  /** Before a row number used as the case id: the file's name when several files are read. */
  readonly rowPrefix: string;
}

async function readRow(row: Row, source: TableSource, m: GenericMapping, x: RowContext): Promise<void> {
  const { issues, parts } = x;
  const at = (field: string): ErrorLocation => ({ file: source.file, line: row.line, field });
  const id = m.id === ROW_NUMBER ? `${x.rowPrefix}${row.line}` : str(row.values[m.id]).trim();
  const where = source.unit === 'row' ? `Row ${row.line}` : 'This row';
  if (!id) {
    issues.error(`${where} has no case id.`, at(m.id));
    return;
  }
  if (!x.ids.claim(id, at(m.id))) return;
  const question = questionText(row.values[m.question]);
  if (!question.trim()) {
    issues.error(`Case "${id}" has no question text.`, at(m.question));
    return;
  }
  const images = await rowImages(id, m, row, x, at);
  if (images === 'skip' || images === null) return;
  const options = x.keys.options(m, row.values, str);
  const classLabel = m.classLabel ? x.classes.read(str(row.values[m.classLabel]), at(m.classLabel)) : null;
  const family = taskFamily(m, row, options.length > 0, issues, at);
  if (!family) return;
  const reference = rowReference(m, row, classLabel, options, x.keys, at, issues, images.length);
  const lang = guessCjkLang(question);
  const opt = (c: string | undefined) => (c ? str(row.values[c]).trim() : '');
  const [splitCell, diseaseGroup, subtask, modality, notes] = [opt(m.split), opt(m.diseaseGroup), opt(m.subtask), opt(m.modality), m.notes ? str(row.values[m.notes]) : ''];
  const split = splitCell || x.split;
  parts.cases.push({
    id,
    ...(split ? { split } : {}),
    taskFamily: family,
    ...(modality ? { modality } : {}),
    ...(diseaseGroup ? { diseaseGroup } : {}),
    ...(subtask ? { subtask } : {}),
    images,
    ...(notes.trim() ? { notes } : {}),
    questions: [{ id: 'q1', text: question, ...(lang ? { lang } : {}), ...(options.length ? { options } : {}), ...(reference ? { reference } : {}) }],
  });
}

/** A row's images in order: 'skip' when a file is missing (recorded as skipped), null after an error. */
async function rowImages(
  id: string,
  m: GenericMapping,
  row: Row,
  x: RowContext,
  at: (field: string) => ErrorLocation,
): Promise<CaseImage[] | 'skip' | null> {
  const list: CaseImage[] = [];
  let n = 0;
  for (const column of imageColumns(m)) {
    const cells = imageCells(row.values[column]);
    if ('error' in cells) {
      x.issues.error(`The image cell of case "${id}" ${cells.error}.`, at(column));
      return null;
    }
    for (const cell of cells) {
      n++;
      if (cell.kind === 'data' || cell.kind === 'bytes') {
        const image = cell.kind === 'data' ? dataUriImage(cell.uri) : withKind(cell.bytes);
        if ('error' in image) {
          x.issues.error(`Image ${n} of case "${id}" ${image.error}.`, at(column));
          return null;
        }
        const path = `images/${safeSegment(id)}-${n}.${image.kind.ext}`;
        x.parts.images.set(path, image.bytes);
        if (cell.kind === 'bytes' && cell.name) x.parts.inputNames.set(path, cell.name);
        list.push({ path, mime: image.kind.mime });
        continue;
      }
      const file = x.paths.file(cell.ref) ?? x.paths.late(cell.ref);
      if (!file) {
        x.parts.skipped.push({ id, reason: `image not found: ${cell.ref}`, location: at(column) });
        return 'skip';
      }
      const image = await x.paths.load(cell.ref, at(column));
      if (!image) return null;
      list.push(image);
    }
  }
  return list;
}

function withKind(bytes: Uint8Array): { bytes: Uint8Array; kind: Exclude<ReturnType<typeof identifyImage>, { error: string }> } | { error: string } {
  const kind = identifyImage(bytes);
  return 'error' in kind ? kind : { bytes, kind };
}

function taskFamily(m: GenericMapping, row: Row, hasOptions: boolean, issues: Issues, at: (f: string) => ErrorLocation): TaskFamily | undefined {
  const fromColumn = m.taskFamily ? str(row.values[m.taskFamily]).trim() : '';
  if (fromColumn) {
    if (TASK_FAMILIES.includes(fromColumn as TaskFamily)) return fromColumn as TaskFamily;
    issues.error(`"${fromColumn}" is not a task family (${TASK_FAMILIES.join(', ')}).`, at(m.taskFamily!));
    return undefined;
  }
  return m.defaultTaskFamily ?? (hasOptions ? 'multiple-choice' : m.classLabel ? 'classification' : 'open-question');
}

/** The row's answer key; the class label goes where classification scoring reads it (`labels.diagnosis_name`). */
function rowReference(
  m: GenericMapping,
  row: Row,
  classLabel: string | null,
  options: readonly QuestionOption[],
  keys: OptionKeys,
  at: (f: string) => ErrorLocation,
  issues: Issues,
  imageCount: number,
): ReferenceAnswer | undefined {
  const written = m.answer ? str(row.values[m.answer]).trim() : '';
  const answer = written && options.length ? keys.answerKey(written, options, at(m.answer!)) : written;
  const diagnosis = m.diagnosis ? str(row.values[m.diagnosis]).trim() : '';
  const aliases = m.aliases ? listCell(row.values[m.aliases], /[|;]/, str) : [];
  const short = shortAnswerOf(m, row);
  const numeric = numericAnswerOf(m, row, at, issues);
  const rubric = m.rubric ? rubricOf(row.values[m.rubric], at(m.rubric), issues) : [];
  const boxes = m.boxes ? boxesOf(row.values[m.boxes], m.boxImage === 'last' ? Math.max(0, imageCount - 1) : 0, at(m.boxes), issues) : [];
  if (!answer && !diagnosis && !aliases.length && !classLabel && !short && !numeric && !rubric.length && !boxes.length) return undefined;
  return {
    ...(answer ? { answer } : {}),
    ...(boxes.length ? { boxes, boxFrame: m.boxFrame ?? 'pixels' } : {}),
    ...(short ? { short } : {}),
    ...(numeric ? { numeric } : {}),
    ...(rubric.length ? { rubric } : {}),
    ...(diagnosis ? { diagnosis } : {}),
    ...(aliases.length ? { aliases } : {}),
    ...(classLabel ? { labels: { diagnosis_name: classLabel } } : {}),
  };
}

/**
 * The reference boxes of a cell: four numbers `[x1, y1, x2, y2]` (MedSG-Bench's
 * `answer_xyxy`), a list of such lists, objects with `x1…y2` (or `xmin…ymax`,
 * or `bbox`) and optionally `image` and `label`, or text holding any of these
 * in the forms a model's answer is read in (box-parse.ts). Corners in either
 * order are put in order. A box lies on `image` unless the cell says which.
 * A non-empty cell with no box in it is an error naming the cell.
 */
function boxesOf(cell: unknown, image: number, at: ErrorLocation, issues: Issues): ReferenceBox[] {
  if (cell === null || cell === undefined || cell === '') return [];
  const fail = () => {
    issues.error(`The box cell ${quoteCell(cell)} holds no box x1, y1, x2, y2.`, at);
    return [];
  };
  let value: unknown = cell;
  if (typeof cell === 'string') {
    const t = cell.trim();
    if (!t) return [];
    try {
      value = JSON.parse(t);
    } catch {
      const read = parseBoxes(t);
      return read.length ? read.map((b) => ({ ...b, ...(image ? { image } : {}) })) : fail();
    }
  }
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : null);
  const quad = (v: unknown): [number, number, number, number] | null => {
    if (!Array.isArray(v) || v.length !== 4) return null;
    const n = v.map(num);
    return n.every((x): x is number => x !== null) ? (n as [number, number, number, number]) : null;
  };
  const box = ([a, b, c, d]: readonly number[], on: number, label?: string): ReferenceBox => ({
    x1: Math.min(a!, c!), y1: Math.min(b!, d!), x2: Math.max(a!, c!), y2: Math.max(b!, d!), ...(on ? { image: on } : {}), ...(label ? { label } : {}),
  });
  const one = (v: unknown): ReferenceBox | null => {
    const q = quad(v);
    if (q) return box(q, image);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    const o = v as Record<string, unknown>;
    const named = quad(o.bbox) ?? quad([o.x1 ?? o.xmin, o.y1 ?? o.ymin, o.x2 ?? o.xmax, o.y2 ?? o.ymax]);
    if (!named) return null;
    const on = num(o.image);
    return box(named, on !== null && Number.isInteger(on) && on >= 0 ? on : image, typeof o.label === 'string' ? o.label : undefined);
  };
  const single = one(value);
  if (single) return [single];
  if (!Array.isArray(value) || value.length === 0) return fail();
  const all = value.map(one);
  return all.every((b): b is ReferenceBox => b !== null) ? all : fail();
}

function quoteCell(v: unknown): string {
  return quoteValue(typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)) ?? String(v));
}

/** A row's short answer, with its answer type when a column gives one (OPEN/CLOSED in any case; anything else is left to the reference). */
function shortAnswerOf(m: GenericMapping, row: Row): ReferenceAnswer['short'] | undefined {
  const text = m.shortAnswer ? str(row.values[m.shortAnswer]).trim() : '';
  if (!text) return undefined;
  const type = m.answerType ? str(row.values[m.answerType]).trim().toLowerCase() : '';
  return { text, ...(type === 'open' || type === 'closed' ? { type } : {}) };
}

/** A row's numeric answer with its limits and calculator id; a limit of a numeric answer that is not a number is an error naming its cell. */
function numericAnswerOf(m: GenericMapping, row: Row, at: (f: string) => ErrorLocation, issues: Issues): ReferenceAnswer['numeric'] | undefined {
  const value = m.numericAnswer ? str(row.values[m.numericAnswer]).trim() : '';
  if (!value) return undefined;
  // A date or a (weeks, days) answer has no numeric limits: MedCalc-Bench repeats the answer in its limit columns.
  const numericValue = Number.isFinite(Number(value));
  const number = (column: string | undefined, limit = true): number | undefined => {
    const cell = column ? str(row.values[column]).trim() : '';
    if (!cell || (limit && !numericValue)) return undefined;
    const n = Number(cell);
    if (!Number.isFinite(n)) {
      issues.error(`"${cell}" in column "${column}" is not a number.`, at(column!));
      return undefined;
    }
    return n;
  };
  const lower = number(m.numericLower);
  const upper = number(m.numericUpper);
  const calculatorId = number(m.calculatorId, false);
  return { value, ...(lower !== undefined ? { lower } : {}), ...(upper !== undefined ? { upper } : {}), ...(calculatorId !== undefined ? { calculatorId } : {}) };
}

/**
 * Rubric items from a list of `{criterion, points, tags}` (HealthBench's
 * `rubrics`; `text` for `criterion` also read), a JSON array or a JSON text
 * holding one. An item without a criterion or numeric points is an error
 * naming the item.
 */
function rubricOf(cell: unknown, at: ErrorLocation, issues: Issues): RubricItem[] {
  let value = cell;
  if (typeof cell === 'string') {
    if (!cell.trim()) return [];
    try {
      value = JSON.parse(cell);
    } catch {
      issues.error('The rubric cell is not a JSON list of {criterion, points, tags}.', at);
      return [];
    }
  }
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.error('The rubric cell is not a list of {criterion, points, tags}.', at);
    return [];
  }
  const out: RubricItem[] = [];
  value.forEach((item: unknown, i) => {
    const o = (item ?? {}) as Record<string, unknown>;
    const text = typeof o.criterion === 'string' ? o.criterion : typeof o.text === 'string' ? o.text : '';
    const points = typeof o.points === 'number' ? o.points : typeof o.points === 'bigint' ? Number(o.points) : NaN;
    if (!text.trim() || !Number.isFinite(points)) {
      issues.error(`Rubric item ${i + 1} needs a criterion and numeric points.`, { ...at, field: `${at.field ?? ''}[${i}]` });
      return;
    }
    const tags = Array.isArray(o.tags) ? o.tags.filter((t): t is string => typeof t === 'string') : [];
    out.push({ id: `r${i + 1}`, text, points, ...(tags.length ? { tags } : {}) });
  });
  return out;
}

/** A question cell that is a conversation (HealthBench's `prompt`: `[{role, content}]`) as text, one turn per paragraph; other cells as they are. */
function questionText(cell: unknown): string {
  let value = cell;
  if (typeof cell === 'string' && cell.trim().startsWith('[{')) {
    try {
      value = JSON.parse(cell);
    } catch {
      return cell;
    }
  }
  if (Array.isArray(value) && value.length && value.every((t) => t && typeof t === 'object' && typeof (t as { content?: unknown }).content === 'string')) {
    return (value as { role?: string; content: string }[]).map((t) => `${t.role ?? 'user'}: ${t.content}`).join('\n\n');
  }
  return str(cell);
}

export { listCell, str as cellText };
