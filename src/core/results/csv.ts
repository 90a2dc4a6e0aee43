/**
 * CSV for spreadsheets (RFC 4180), safe against formula injection: a text
 * cell that starts with =, +, -, @, tab or carriage return is prefixed with
 * an apostrophe so Excel, LibreOffice and Google Sheets show it as text
 * instead of running it (OWASP "CSV Injection"). Numbers stay numbers.
 */
type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: CsvCell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = String(v);
  if (typeof v === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Header plus rows, CRLF line ends (what spreadsheet programs expect), with a BOM so Excel reads UTF-8. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return `\uFEFF${[header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
