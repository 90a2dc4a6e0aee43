/**
 * Reads the first worksheet of an .xlsx workbook as a table: header row and
 * one record per row, with the row number the spreadsheet shows. Enough of
 * SpreadsheetML (ECMA-376 part 1, §18.3 worksheets, §18.4 shared strings) for
 * what pandas writes through xlsxwriter and openpyxl: shared strings
 * (plain and rich text), inline strings, formula results, numbers and
 * booleans. Styles, dates and formulas are not interpreted (a prediction file
 * holds text and numbers).
 *
 * CHOICE: a small reader on fflate (via the safe ZIP reader) instead of a
 * spreadsheet library: docs/decisions/xlsx-reader.md says why.
 */
import { readZip } from '../../bundle/zip-read.ts';
import { InvalidInputError } from '../../errors.ts';
import { decodeUnicode } from '../../text/decode.ts';

export type SheetCell = string | number | boolean | null;

export interface SheetRow {
  /** The row number as the spreadsheet shows it (the header is row 1 in a pandas file). */
  readonly line: number;
  readonly values: Readonly<Record<string, SheetCell>>;
}

export interface SheetTable {
  readonly sheet: string;
  readonly header: readonly string[];
  readonly rows: readonly SheetRow[];
}

/** A workbook of a prediction file is text: far below these, and a bomb is refused before it is inflated. */
const XLSX_LIMITS = { maxTotalBytes: 1024 ** 3, maxEntryBytes: 512 * 1024 ** 2, maxEntries: 10_000 };

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character data → text: the five entities, numeric references, and OOXML's `_xHHHH_` escapes of control characters. */
export function xmlText(raw: string): string {
  const unescaped = raw.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
  return unescaped.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Attributes of one start tag, namespace prefixes dropped (`r:id` → `id`). */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    const name = m[1]!.includes(':') ? m[1]!.slice(m[1]!.indexOf(':') + 1) : m[1]!;
    out[name] = xmlText(m[3] ?? m[4] ?? '');
  }
  return out;
}

/** Text of the `<t>` runs of a string item, phonetic runs (`<rPh>`) left out. */
function stringItemText(xml: string): string {
  const body = xml.replace(/<(?:[\w.-]+:)?rPh\b[\s\S]*?<\/(?:[\w.-]+:)?rPh>/g, '');
  let text = '';
  for (const m of body.matchAll(/<(?:[\w.-]+:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:[\w.-]+:)?t>/g)) text += xmlText(m[1]!);
  return text;
}

function sharedStrings(xml: string | undefined): string[] {
  if (!xml) return [];
  return [...xml.matchAll(/<(?:[\w.-]+:)?si\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?si>)/g)].map((m) => stringItemText(m[1] ?? ''));
}

/** Column index (0-based) of a cell reference such as `AB12`. */
function columnOf(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const c = ch.charCodeAt(0);
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return n - 1;
}

/** The path of the workbook's first sheet, from workbook.xml and its relationships. */
function firstSheet(files: ReadonlyMap<string, Uint8Array>, text: (p: string) => string | undefined): { name: string; path: string } {
  const workbook = text('xl/workbook.xml');
  const sheet = workbook?.match(/<(?:[\w.-]+:)?sheet\b[^>]*>/);
  const attrs = sheet ? attributes(sheet[0]) : {};
  const rels = text('xl/_rels/workbook.xml.rels');
  let target: string | undefined;
  if (attrs.id && rels) {
    for (const m of rels.matchAll(/<(?:[\w.-]+:)?Relationship\b[^>]*>/g)) {
      const r = attributes(m[0]);
      if (r.Id === attrs.id) target = r.Target;
    }
  }
  const path = target ? (target.startsWith('/') ? target.slice(1) : `xl/${target}`) : 'xl/worksheets/sheet1.xml';
  if (!files.has(path)) throw new InvalidInputError(`the workbook names no readable first worksheet (looked for ${path}).`, { field: 'xl/workbook.xml' });
  return { name: attrs.name ?? 'Sheet1', path };
}

/**
 * The first worksheet of an .xlsx file.
 * @throws InvalidInputError naming the file (not a workbook, a bad archive, a missing sheet).
 */
export function readXlsx(bytes: Uint8Array, file: string): SheetTable {
  let files: Map<string, Uint8Array>;
  try {
    files = readZip(bytes, file, XLSX_LIMITS);
  } catch (error) {
    throw new InvalidInputError(`${file}: not a readable .xlsx workbook (${error instanceof Error ? error.message : String(error)}).`, { file });
  }
  const text = (p: string): string | undefined => {
    const b = files.get(p);
    return b ? decodeUnicode(b, `${file}/${p}`) : undefined;
  };
  if (!files.has('xl/workbook.xml')) throw new InvalidInputError(`${file}: not an .xlsx workbook (no xl/workbook.xml inside).`, { file });
  let sheet: { name: string; path: string };
  try {
    sheet = firstSheet(files, text);
  } catch (error) {
    throw new InvalidInputError(`${file}: ${error instanceof Error ? error.message : String(error)}`, { file, field: 'xl/workbook.xml' });
  }
  const strings = sharedStrings(text('xl/sharedStrings.xml'));
  const xml = text(sheet.path)!;
  const grid: { line: number; cells: SheetCell[] }[] = [];
  let nextRow = 1;
  for (const row of xml.matchAll(/<(?:[\w.-]+:)?row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?row>)/g)) {
    const line = Number(attributes(row[1]!).r) || nextRow;
    nextRow = line + 1;
    const cells: SheetCell[] = [];
    let nextCol = 0;
    for (const c of (row[2] ?? '').matchAll(/<(?:[\w.-]+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?c>)/g)) {
      const a = attributes(c[1]!);
      const col = a.r ? columnOf(a.r) : nextCol;
      nextCol = col + 1;
      const body = c[2] ?? '';
      const v = body.match(/<(?:[\w.-]+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:[\w.-]+:)?v>/)?.[1];
      let value: SheetCell;
      switch (a.t) {
        case 's': {
          const i = Number(v);
          if (!Number.isInteger(i) || i < 0 || i >= strings.length) {
            throw new InvalidInputError(`${file}: row ${line}, cell ${a.r ?? col + 1}: refers to shared string ${v ?? '(none)'}, which the workbook does not have.`, { file, line, field: a.r ?? `column ${col + 1}` });
          }
          value = strings[i]!;
          break;
        }
        case 'inlineStr':
          value = stringItemText(body.match(/<(?:[\w.-]+:)?is\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?is>/)?.[1] ?? '');
          break;
        case 'str':
        case 'e':
          value = v === undefined ? null : xmlText(v);
          break;
        case 'b':
          value = v === undefined ? null : v.trim() === '1';
          break;
        default:
          value = v === undefined || v.trim() === '' ? null : Number(v);
          if (typeof value === 'number' && !Number.isFinite(value)) value = xmlText(v!);
      }
      cells[col] = value;
    }
    grid.push({ line, cells });
  }
  const head = grid[0];
  if (!head) throw new InvalidInputError(`${file}: the first worksheet ("${sheet.name}") is empty: expected a header row.`, { file, line: 1 });
  const header = Array.from({ length: head.cells.length }, (_, i) => (head.cells[i] === null || head.cells[i] === undefined ? '' : String(head.cells[i]).trim()));
  const seen = new Set<string>();
  header.forEach((h, i) => {
    if (h && seen.has(h)) throw new InvalidInputError(`${file}: row ${head.line}: the header names column "${h}" twice.`, { file, line: head.line, field: h });
    if (h) seen.add(h);
    if (!h && head.cells.slice(i + 1).some((x) => x !== null && x !== undefined)) {
      throw new InvalidInputError(`${file}: row ${head.line}: column ${i + 1} of the header has no name.`, { file, line: head.line });
    }
  });
  const rows: SheetRow[] = grid.slice(1).map(({ line, cells }) => {
    const values: Record<string, SheetCell> = {};
    header.forEach((h, i) => {
      if (h) values[h] = cells[i] ?? null;
    });
    return { line, values };
  });
  return { sheet: sheet.name, header: header.filter(Boolean), rows };
}
