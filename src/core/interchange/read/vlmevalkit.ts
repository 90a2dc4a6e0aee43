/**
 * VLMEvalKit prediction files: `<model>_<dataset>.xlsx` (the default), `.tsv`
 * or `.json`, as `vlmeval/inference.py::infer_data_job` writes them: the
 * dataset's own TSV columns without `image` (index, question, A…, answer,
 * category…) plus `prediction`, and `thinking` when reasoning was split off
 * (`vlmeval/smp/file.py::dump`: pandas `to_excel(index=False)` through
 * xlsxwriter, `to_csv(sep='\t', quoting=QUOTE_ALL)`, or `to_dict('records')`).
 * A failed call's prediction reads VLMEvalKit's FAIL_MSG.
 */
import { parseDelimited } from '../../text/delimited.ts';
import { decodeUnicode } from '../../text/decode.ts';
import { parseJsonText } from '../../scoring/io/json-text.ts';
import { FOREIGN_LIMITS, foreignError, idField, isObj, textField, type ForeignItem, type ForeignLog } from '../types.ts';
import { readXlsx, type SheetCell } from './xlsx.ts';

/** `vlmeval/constant.py` FAIL_MSG, and the variant some API datasets use. */
const FAIL_MESSAGES = ['Failed to obtain answer.', 'Failed to obtain answer via API.'];

type Row = { line: number | undefined; entry?: string; values: Readonly<Record<string, SheetCell | unknown>> };

/** `Qwen2-VL-7B-Instruct_MMBench_DEV_EN.xlsx` → model `Qwen2-VL-7B-Instruct`, dataset `MMBench_DEV_EN` (the caller can name the model itself). */
export function splitPredictionName(file: string): { model: string; task: string | null } {
  const stem = (file.split('/').pop() ?? file).replace(/\.(xlsx|tsv|json)$/i, '');
  const cut = stem.indexOf('_');
  return cut > 0 ? { model: stem.slice(0, cut), task: stem.slice(cut + 1) || null } : { model: stem, task: null };
}

function rowsOf(bytes: Uint8Array, file: string): { header: readonly string[]; rows: Row[] } {
  const ext = file.toLowerCase().split('.').pop();
  if (ext === 'xlsx') {
    const t = readXlsx(bytes, file);
    return { header: t.header, rows: t.rows.map((r) => ({ line: r.line, values: r.values })) };
  }
  const text = decodeUnicode(bytes, file);
  if (ext === 'json') {
    const v = parseJsonText(text, file);
    if (!Array.isArray(v)) throw foreignError({ file, line: 1 }, 'expected a JSON list of records (one per question), as VLMEvalKit writes a prediction file.');
    const rows: Row[] = v.map((r, i) => {
      if (!isObj(r)) throw foreignError({ file, field: `[${i}]` }, 'expected a record (an object with index and prediction).');
      return { line: undefined, entry: `[${i}]`, values: r };
    });
    const header = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
    return { header, rows };
  }
  const t = parseDelimited(text, '\t', file);
  return { header: t.header, rows: t.rows.map((r) => ({ line: r.line, values: r.values })) };
}

/** True when the text looks like a prediction file: an index and a prediction column. */
export function looksLikeVlmEvalKitPredictions(header: readonly string[]): boolean {
  return header.includes('index') && header.includes('prediction');
}

/**
 * Reads a prediction file. Refuses, naming the file, line (or record) and
 * column: a missing `index` or `prediction` column, a row without an index,
 * a cell of the wrong type, a field past the size limits.
 */
export function readVlmEvalKit(bytes: Uint8Array, file: string, sha256: string, options: { model?: string } = {}): ForeignLog {
  const { header, rows } = rowsOf(bytes, file);
  for (const c of ['index', 'prediction']) {
    if (!header.includes(c)) {
      throw foreignError({ file, line: 1, field: c }, `the file has no "${c}" column, so it is not a VLMEvalKit prediction file (a benchmark TSV without answers is imported on the Benchmarks page).`);
    }
  }
  if (rows.length > FOREIGN_LIMITS.maxItems) throw foreignError({ file }, `${rows.length} rows, more than the ${FOREIGN_LIMITS.maxItems.toLocaleString('en')} one file may hold.`);
  const items: ForeignItem[] = [];
  const warnings: string[] = [];
  let failed = 0;
  for (const row of rows) {
    const at = (field: string) => ({ file, ...(row.line !== undefined ? { line: row.line } : {}), field: row.entry ? `${row.entry}.${field}` : field });
    const v = row.values;
    const id = idField(typeof v.index === 'number' && !Number.isInteger(v.index) ? String(v.index) : v.index, at('index'));
    const prediction = textField(v.prediction, at('prediction'), 'the prediction');
    const failure = prediction !== null && FAIL_MESSAGES.some((m) => prediction.includes(m));
    if (failure) failed++;
    const question = textField(v.question, at('question'), 'the question');
    const target = textField(v.answer, at('answer'), 'the answer');
    const thinking = textField(v.thinking, at('thinking'), 'the thinking');
    items.push({
      at: { file, ...(row.line !== undefined ? { line: row.line } : {}), ...(row.entry ? { field: row.entry } : {}) },
      id,
      sample: 0,
      question,
      // A reasoning model's thinking goes back in front, as the model wrote it: NeuroEval's parsers strip it themselves.
      answer: failure || prediction === null ? null : thinking ? `<think>${thinking}</think>${prediction}` : prediction,
      error: failure ? prediction : prediction === null ? 'no prediction' : null,
      target,
      scores: {},
    });
  }
  if (failed) warnings.push(`${file}: ${failed === 1 ? '1 prediction reads' : `${failed} predictions read`} "${FAIL_MESSAGES[0]}" (VLMEvalKit's failed call): stored as ${failed === 1 ? 'a failed answer' : 'failed answers'}.`);
  const name = splitPredictionName(file);
  return { harness: 'vlmevalkit', file, sha256, model: options.model ?? name.model, task: name.task, settings: {}, createdAt: null, items, warnings };
}
