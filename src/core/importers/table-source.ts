/**
 * The rows of a data file for the generic importer, whatever its layout:
 * CSV/TSV, JSONL, a JSON array of objects (OmniMedVQA's layout), or Parquet
 * (Hugging Face's). Each row keeps where it came from: its line in a text
 * file, or its row number (from 1) in a Parquet file. Rows arrive in
 * batches: a Parquet file one row group at a time, a text file at once (it
 * is read whole anyway).
 */
import { InvalidInputError } from '../errors.ts';
import { sniffDelimiter } from '../text/delimited.ts';
import { nonFiniteField, nonFiniteMessage } from '../bundle/json-values.ts';
import { extensionOf, type InputFile } from '../bundle/importer.ts';
import { KeyLines, parseJsonWithLocation } from './json-source.ts';
import { ParquetSource, type ParquetColumn } from './parquet-source.ts';
import { firstLine, readTable, type Issues } from './support.ts';

export interface Row {
  /** Line (text files) or row number (Parquet, from 1). */
  readonly line: number;
  readonly values: Readonly<Record<string, unknown>>;
}

export interface TableSource {
  readonly file: string;
  readonly columns: readonly string[];
  /** Rows in the file (Parquet: from its footer, before any is read). */
  readonly rowCount: number;
  /** `line` for text files, `row` for Parquet: how messages name a row's place. */
  readonly unit: 'line' | 'row';
  /** Column shapes where the file declares them (Parquet). */
  readonly shapes?: ReadonlyMap<string, ParquetColumn['shape']>;
  batches(columns?: readonly string[]): AsyncIterable<readonly Row[]>;
}

/** Data file extensions the generic importer reads. */
export const DATA_EXTENSIONS: ReadonlySet<string> = new Set(['csv', 'tsv', 'jsonl', 'ndjson', 'json', 'parquet']);

const isJsonl = (path: string): boolean => ['jsonl', 'ndjson'].includes(extensionOf(path));

function inMemory(file: string, columns: readonly string[], rows: readonly Row[]): TableSource {
  return {
    file,
    columns,
    rowCount: rows.length,
    unit: 'line',
    async *batches() {
      yield rows;
    },
  };
}

function readJsonl(text: string, file: string, issues: Issues, headOnly: boolean): TableSource {
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
      issues.error(`Line ${i + 1} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { file, line: i + 1 });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.error(`Line ${i + 1} is not a JSON object.`, { file, line: i + 1 });
      continue;
    }
    const infinite = nonFiniteField(value);
    if (infinite !== null) {
      issues.error(nonFiniteMessage(infinite), { file, line: i + 1, field: infinite });
      continue;
    }
    if (rows.length < 100) for (const k of Object.keys(value)) columns.add(k);
    rows.push({ line: i + 1, values: value as Record<string, unknown> });
  }
  return inMemory(file, [...columns], rows);
}

/**
 * A JSON array of objects, or an object holding one (`{"data": [...]}`).
 * Each entry's line is found by the first key whose values are unique
 * strings or numbers (an id), else the line of its opening brace is unknown
 * and the entry is named by its position.
 */
function readJsonArray(text: string, file: string, issues: Issues, headOnly: boolean): TableSource {
  const value = parseJsonWithLocation(text, file);
  let list: unknown = value;
  if (!Array.isArray(value) && value !== null && typeof value === 'object') {
    const arrays = Object.entries(value).filter(([, v]) => Array.isArray(v));
    if (arrays.length === 1) list = arrays[0]![1];
  }
  if (!Array.isArray(list)) {
    throw new InvalidInputError(`${file} is JSON but not a list of rows: expected an array of objects (one per question), or an object holding one array.`, { file });
  }
  const columns = new Set<string>();
  const objects = list.filter((v, i) => {
    const ok = v !== null && typeof v === 'object' && !Array.isArray(v);
    if (!ok) issues.error(`Entry ${i + 1} of the array is not a JSON object.`, { file, field: `[${i}]` });
    return ok;
  }) as Record<string, unknown>[];
  for (const o of objects.slice(0, 100)) for (const k of Object.keys(o)) columns.add(k);
  const key = [...columns].find((k) => objects.every((o) => typeof o[k] === 'string' || typeof o[k] === 'number'));
  const lines = key && !headOnly ? new KeyLines(text, key) : undefined;
  const rows = (headOnly ? objects.slice(0, 100) : objects).map((o, i) => ({ line: (key ? lines?.take(String(o[key])) : undefined) ?? i + 1, values: o }));
  return inMemory(file, [...columns], rows);
}

function parquetTable(source: ParquetSource): TableSource {
  return {
    file: source.file,
    columns: source.columns.map((c) => c.name),
    rowCount: source.rowCount,
    unit: 'row',
    shapes: new Map(source.columns.map((c) => [c.name, c.shape])),
    async *batches(columns?: readonly string[]) {
      for await (const group of source.rowGroupRows(columns)) yield group.map((r) => ({ line: r.row, values: r.values }));
    },
  };
}

/**
 * Opens a data file. `headOnly` reads just enough for the column list (the
 * first line of a CSV, the first 100 JSON rows, a Parquet footer).
 */
export async function openTable(file: InputFile, issues: Issues, headOnly = false): Promise<TableSource> {
  const ext = extensionOf(file.path);
  if (ext === 'parquet') return parquetTable(await ParquetSource.open(file));
  const text = await file.text();
  if (isJsonl(file.path)) return readJsonl(text, file.path, issues, headOnly);
  if (ext === 'json') return readJsonArray(text, file.path, issues, headOnly);
  const delimiter = ext === 'tsv' ? '\t' : sniffDelimiter(text);
  const table = readTable(headOnly ? firstLine(text) : text, delimiter, file.path, issues);
  return inMemory(file.path, table.header, table.rows);
}
