/**
 * Any CSV/TSV or JSONL with a column mapping chosen by the user (see
 * generic-mapping.ts). Image columns hold paths relative to the picked folder
 * (matched as in path-match.ts: exact, else one folder offset for the whole
 * import), several paths separated by `|` (or a list in JSONL), or data URIs.
 * Rows whose image file is missing are skipped with the reason. What the
 * mapping means for scoring (class labels, references no protocol of the
 * cases reads) is checked in generic-scoring.ts.
 */
import type { ErrorLocation } from '../../errors.ts';
import { nonFiniteField, nonFiniteMessage } from '../json-values.ts';
import { TASK_FAMILIES, type CaseImage, type QuestionOption, type ReferenceAnswer, type TaskFamily } from '../types.ts';
import { mappedColumns, parseMapping, suggestMapping, type GenericMapping } from './generic-mapping.ts';
import { ClassLabels, warnUnscored } from './generic-scoring.ts';
import { dataUriImage } from './image-data.ts';
import { extensionOf, type Importer, type InputFile } from './importer.ts';
import { PathImages } from './path-images.ts';
import { sniffDelimiter } from '../../text/delimited.ts';
import { CaseIds, Issues, Ticker, draftManifest, firstLine, guessCjkLang, newParts, readTable, safeSegment, stem, stringOption, toDraft, type DraftParts } from './support.ts';

export { suggestMapping, type GenericMapping };

const TABULAR = new Set(['csv', 'tsv', 'jsonl', 'ndjson']);
const isJsonl = (path: string) => ['jsonl', 'ndjson'].includes(extensionOf(path));

interface Row {
  readonly line: number;
  readonly values: Readonly<Record<string, unknown>>;
}
interface Source {
  readonly file: string;
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}

/** The data file: `options.file` when given, else the first CSV/TSV/JSONL among the inputs. */
function dataFile(files: readonly InputFile[], wanted?: string): InputFile | undefined {
  if (wanted) return files.find((f) => f.path === wanted);
  return files.find((f) => TABULAR.has(extensionOf(f.path)));
}

async function readSource(file: InputFile, issues: Issues, headOnly = false): Promise<Source> {
  const text = await file.text();
  if (!isJsonl(file.path)) {
    const delimiter = extensionOf(file.path) === 'tsv' ? '\t' : sniffDelimiter(text);
    const table = readTable(headOnly ? firstLine(text) : text, delimiter, file.path, issues);
    return { file: file.path, columns: table.header, rows: table.rows };
  }
  const rows: Row[] = [];
  const columns = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && !(headOnly && rows.length >= 100); i++) {
    const raw = lines[i]!.trim();
    if (!raw) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      issues.error(`Line ${i + 1} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { file: file.path, line: i + 1 });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.error(`Line ${i + 1} is not a JSON object.`, { file: file.path, line: i + 1 });
      continue;
    }
    const infinite = nonFiniteField(value);
    if (infinite !== null) {
      issues.error(nonFiniteMessage(infinite), { file: file.path, line: i + 1, field: infinite });
      continue;
    }
    if (!headOnly || rows.length < 100) for (const k of Object.keys(value)) columns.add(k);
    rows.push({ line: i + 1, values: value as Record<string, unknown> });
  }
  return { file: file.path, columns: [...columns], rows };
}

/** Column names for the mapping form: the CSV header, or the union of keys of the first 100 JSONL rows. */
export async function listColumns(files: readonly InputFile[]): Promise<string[]> {
  const file = dataFile(files);
  return file ? [...(await readSource(file, new Issues(), true)).columns] : [];
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A cell that may hold a list: a JSON array (JSONL, or a CSV cell like `["a","b"]`), else `sep`-separated text. */
function listCell(v: unknown, sep: RegExp): string[] {
  let value = v;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      value = JSON.parse(v);
    } catch {
      value = v;
    }
  }
  if (Array.isArray(value)) return value.map(str).map((s) => s.trim()).filter(Boolean);
  const s = str(value).trim();
  if (!s) return [];
  return s.startsWith('data:') ? [s] : s.split(sep).map((x) => x.trim()).filter(Boolean);
}

function imageRefs(m: GenericMapping, row: Row): { column: string; ref: string }[] {
  const columns = typeof m.image === 'string' ? [m.image] : (m.image ?? []);
  return columns.flatMap((column) => listCell(row.values[column], /\|/).map((ref) => ({ column, ref })));
}

export const genericImporter: Importer = {
  kind: 'generic',
  label: 'CSV or JSONL with a column mapping',

  async detect(files) {
    return files.some((f) => TABULAR.has(extensionOf(f.path))) ? 0.3 : 0;
  },

  async read(files, ctx) {
    const issues = new Issues();
    const parts = newParts();
    const file = dataFile(files, stringOption(ctx, 'file'));
    const name = stem(file?.path ?? 'generic');
    const manifest = draftManifest(ctx, { id: name, name, version: '1', license: 'unknown', source: { kind: 'generic', files: file ? [file.path] : [] } });
    const parsed = parseMapping(ctx.options?.mapping);
    if (!file) {
      issues.error('No CSV, TSV or JSONL file to read.', { file: files[0]?.path ?? '' });
      return toDraft(manifest, parts, issues);
    }
    if (!parsed.mapping) {
      issues.error(parsed.error ?? 'Choose which columns hold the case id and the question (and, if present, images, answers and options).', { file: file.path, field: 'mapping' });
      return toDraft(manifest, parts, issues);
    }
    const m = parsed.mapping;
    const source = await readSource(file, issues);
    const known = new Set(source.columns);
    const absent = mappedColumns(m).filter((c) => !known.has(c.column));
    for (const a of absent) issues.error(`The mapping uses column "${a.column}" for ${a.field}, but ${file.path} has no such column.`, { file: file.path, line: 1, field: a.column });
    if (absent.length) return toDraft(manifest, parts, issues);

    const paths = new PathImages(files, source.rows.flatMap((r) => imageRefs(m, r).map((x) => x.ref).filter((x) => !x.startsWith('data:'))), issues, parts);
    const ids = new CaseIds(issues);
    const classes = new ClassLabels();
    const ticker = new Ticker(ctx, source.rows.length);
    for (const row of source.rows) {
      await ticker.step();
      const at = (field: string): ErrorLocation => ({ file: file.path, line: row.line, field });
      const id = str(row.values[m.id]).trim();
      if (!id) {
        issues.error('This row has no case id.', at(m.id));
        continue;
      }
      if (!ids.claim(id, at(m.id))) continue;
      const question = str(row.values[m.question]);
      if (!question.trim()) {
        issues.error(`Case "${id}" has no question text.`, at(m.question));
        continue;
      }
      const images = await rowImages(id, imageRefs(m, row), paths, parts, issues, at);
      if (images === 'skip' || images === null) continue;
      const options = rowOptions(m, row);
      const classLabel = m.classLabel ? classes.read(str(row.values[m.classLabel]), at(m.classLabel)) : null;
      const family = taskFamily(m, row, options.length > 0, issues, at);
      if (!family) continue;
      const reference = rowReference(m, row, classLabel);
      const lang = guessCjkLang(question);
      const opt = (c: string | undefined) => (c ? str(row.values[c]).trim() : '');
      const [split, diseaseGroup, modality, notes] = [opt(m.split), opt(m.diseaseGroup), opt(m.modality), m.notes ? str(row.values[m.notes]) : ''];
      parts.cases.push({
        id,
        ...(split ? { split } : {}),
        taskFamily: family,
        ...(modality ? { modality } : {}),
        ...(diseaseGroup ? { diseaseGroup } : {}),
        images,
        ...(notes.trim() ? { notes } : {}),
        questions: [{ id: 'q1', text: question, ...(lang ? { lang } : {}), ...(options.length ? { options } : {}), ...(reference ? { reference } : {}) }],
      });
    }
    ticker.finish();
    paths.report();
    classes.report(issues);
    warnUnscored(parts.cases, m, file.path, issues);
    return toDraft(manifest, parts, issues);
  },
};

/** A row's images in order; 'skip' when a file is missing (recorded as skipped), null after an error. */
async function rowImages(
  id: string,
  refs: readonly { column: string; ref: string }[],
  paths: PathImages,
  parts: DraftParts,
  issues: Issues,
  at: (field: string) => ErrorLocation,
): Promise<CaseImage[] | 'skip' | null> {
  const out: CaseImage[] = [];
  for (const [n, { column, ref }] of refs.entries()) {
    if (ref.startsWith('data:')) {
      const image = dataUriImage(ref);
      if ('error' in image) {
        issues.error(`Image ${n + 1} of case "${id}" ${image.error}.`, at(column));
        return null;
      }
      const path = `images/${safeSegment(id)}-${n + 1}.${image.kind.ext}`;
      parts.images.set(path, image.bytes);
      out.push({ path, mime: image.kind.mime });
      continue;
    }
    if (!paths.file(ref)) {
      parts.skipped.push({ id, reason: `image not found: ${ref}`, location: at(column) });
      return 'skip';
    }
    const image = await paths.load(ref, at(column));
    if (!image) return null;
    out.push(image);
  }
  return out;
}

function rowOptions(m: GenericMapping, row: Row): QuestionOption[] {
  const columns = m.options ?? [];
  if (columns.length === 1) {
    const items = listCell(row.values[columns[0]!], /\|/);
    if (Array.isArray(row.values[columns[0]!]) || items.length > 1) return items.map((text, i) => ({ key: String.fromCharCode(65 + i), text }));
  }
  return columns.map((c) => ({ key: c, text: str(row.values[c]).trim() })).filter((o) => o.text !== '');
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
function rowReference(m: GenericMapping, row: Row, classLabel: string | null): ReferenceAnswer | undefined {
  const answer = m.answer ? str(row.values[m.answer]).trim() : '';
  const diagnosis = m.diagnosis ? str(row.values[m.diagnosis]).trim() : '';
  const aliases = m.aliases ? listCell(row.values[m.aliases], /[|;]/) : [];
  if (!answer && !diagnosis && !aliases.length && !classLabel) return undefined;
  return {
    ...(answer ? { answer } : {}),
    ...(diagnosis ? { diagnosis } : {}),
    ...(aliases.length ? { aliases } : {}),
    ...(classLabel ? { labels: { diagnosis_name: classLabel } } : {}),
  };
}
