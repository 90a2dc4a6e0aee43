/**
 * RFC 4180 CSV/TSV parsing with line numbers, so import errors can say
 * "subset.csv line 12, field plane". Quoted fields may hold delimiters,
 * doubled quotes and newlines.
 */
import { InvalidInputError } from '../errors.ts';

export interface DelimitedRow {
  /** 1-based line number where the row starts in the file (the header is line 1). */
  readonly line: number;
  /** Values by header name. Missing trailing cells are empty strings. */
  readonly values: Readonly<Record<string, string>>;
}

export interface DelimitedTable {
  readonly header: readonly string[];
  readonly rows: readonly DelimitedRow[];
}

/** Splits text into records of raw cells, tracking the starting line of each. */
function parseRecords(text: string, delimiter: ',' | '\t', file: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  let atCellStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"' && atCellStart) {
      inQuotes = true;
      atCellStart = false;
    } else if (c === delimiter) {
      cells.push(cell);
      cell = '';
      atCellStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      if (!(cells.length === 1 && cells[0] === '')) records.push({ line: recordLine, cells });
      cells = [];
      cell = '';
      atCellStart = true;
      line++;
      recordLine = line;
    } else {
      cell += c;
      atCellStart = false;
    }
  }
  if (inQuotes) throw new InvalidInputError(`A quoted field starting on line ${recordLine} is never closed.`, { file, line: recordLine });
  if (cell !== '' || cells.length > 0) {
    cells.push(cell);
    records.push({ line: recordLine, cells });
  }
  return records;
}

/**
 * Parses a delimited file with a header row. Header names are trimmed; a
 * duplicate or empty header name is an error naming the file.
 */
export function parseDelimited(
  text: string,
  delimiter: ',' | '\t',
  file: string,
  options: {
    /**
     * A row with more cells than the header: by default the file is refused;
     * with this handler the row is reported through it and left out.
     */
    readonly onWideRow?: (line: number, cells: number, columns: number) => void;
  } = {},
): DelimitedTable {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records = parseRecords(clean, delimiter, file);
  const first = records[0];
  if (!first) throw new InvalidInputError('The file is empty: expected a header row.', { file, line: 1 });
  const header = first.cells.map((h) => h.trim());
  const seen = new Map<string, number>();
  header.forEach((h, i) => {
    if (!h) throw new InvalidInputError(`Column ${i + 1} of the header has no name.`, { file, line: first.line });
    const before = seen.get(h);
    if (before !== undefined) throw new InvalidInputError(`The header names column "${h}" twice (columns ${before + 1} and ${i + 1}).`, { file, line: first.line, field: h });
    seen.set(h, i);
  });
  const rows: DelimitedRow[] = [];
  for (const r of records.slice(1)) {
    if (r.cells.length > header.length) {
      if (!options.onWideRow) {
        throw new InvalidInputError(`Row has ${r.cells.length} cells but the header has ${header.length} columns.`, { file, line: r.line });
      }
      options.onWideRow(r.line, r.cells.length, header.length);
      continue;
    }
    const values: Record<string, string> = {};
    header.forEach((h, i) => (values[h] = r.cells[i] ?? ''));
    rows.push({ line: r.line, values });
  }
  return { header, rows };
}

/** Guesses the delimiter from the header line: tab if it has more tabs than commas. */
export function sniffDelimiter(text: string): ',' | '\t' {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  return (firstLine.match(/\t/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? '\t' : ',';
}
