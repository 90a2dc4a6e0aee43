/**
 * Small pieces every importer shares: issue collection with locations,
 * duplicate-id checks, progress and cancellation between rows, tolerant
 * CSV/TSV reading, and manifest defaults.
 */
import { formatLocation, throwIfAborted, type ErrorLocation } from '../errors.ts';
import { decodeBytes } from '../text/decode.ts';
import { parseDelimited, type DelimitedRow as TableRow, type DelimitedTable as Table } from '../text/delimited.ts';
import type { BenchCase } from '../bundle/types.ts';
import { readZip, zipLimitsFrom } from '../bundle/zip-read.ts';
import { extensionOf, memoryFile, type DraftManifest, type ImportContext, type ImportDraft, type ImportIssue, type InputFile, type SkippedCase } from '../bundle/importer.ts';

/** Collects errors and warnings; importers report data problems here instead of throwing. */
export class Issues {
  readonly list: ImportIssue[] = [];
  error(message: string, location: ErrorLocation): void {
    this.list.push({ severity: 'error', message, location });
  }
  warn(message: string, location: ErrorLocation): void {
    this.list.push({ severity: 'warning', message, location });
  }
}

/** Remembers where each case id was first seen; a second use is an error naming both places. */
export class CaseIds {
  private readonly seen = new Map<string, ErrorLocation>();
  constructor(private readonly issues: Issues) {}

  /** False (and an error) when the id is already taken. */
  claim(id: string, location: ErrorLocation): boolean {
    const first = this.seen.get(id);
    if (first) {
      this.issues.error(`Case id "${id}" appears twice: first at ${describe(first)}, again at ${describe(location)}.`, location);
      return false;
    }
    this.seen.set(id, location);
    return true;
  }
  has(id: string): boolean {
    return this.seen.has(id);
  }
}

function describe(loc: ErrorLocation): string {
  if (loc.line !== undefined) return `${loc.file ?? ''} line ${loc.line}`.trim();
  return formatLocation(loc) || 'an earlier entry';
}

/** Reports progress and checks for cancellation every `every` rows; yields to the event loop so an abort can arrive. */
export class Ticker {
  private done = 0;
  constructor(
    private readonly ctx: ImportContext,
    private readonly total: number,
    private readonly every = 500,
  ) {
    throwIfAborted(ctx.signal);
    ctx.progress?.({ phase: 'read', done: 0, total });
  }
  async step(): Promise<void> {
    this.done++;
    if (this.done % this.every !== 0) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    throwIfAborted(this.ctx.signal);
    this.ctx.progress?.({ phase: 'read', done: Math.min(this.done, this.total), total: this.total });
  }
  finish(): void {
    throwIfAborted(this.ctx.signal);
    this.ctx.progress?.({ phase: 'read', done: this.total, total: this.total });
  }
}

/**
 * The inputs with every ZIP among them replaced by its files, read within the
 * ZIP limits (import option `zipLimits`); `name` gives each entry its path.
 */
export async function expandZips(files: readonly InputFile[], ctx: ImportContext, name: (archive: string, entry: string) => string = (_archive, entry) => entry): Promise<InputFile[]> {
  const out: InputFile[] = [];
  for (const f of files) {
    if (extensionOf(f.path) === 'zip') {
      for (const [entry, bytes] of readZip(await f.bytes(), f.path, zipLimitsFrom(ctx.options), ctx.signal)) out.push(memoryFile(name(f.path, entry), bytes));
    } else out.push(f);
  }
  return out;
}

/** Rows and tables are the CSV parser's own shapes. */
export type { TableRow, Table };

/**
 * Parses CSV/TSV with a header row. Unlike parseDelimited, a row with too many
 * cells becomes an error issue (and is left out) instead of failing the file.
 * A broken header or an unclosed quote still makes the file unusable (throws).
 */
export function readTable(text: string, delimiter: ',' | '\t', file: string, issues: Issues): Table {
  return parseDelimited(text, delimiter, file, {
    onWideRow: (line, cells, columns) =>
      issues.error(`This row has ${cells} cells but the header has ${columns} columns; the row is left out.`, { file, line }),
  });
}

/** Decoded text of the first `limit` bytes: enough for detect() to look at a header (a character cut at the end is dropped). */
export async function headText(file: InputFile, limit = 65_536): Promise<string> {
  const bytes = await file.bytes();
  return decodeBytes(bytes.subarray(0, limit), file.path, { partial: true }).text;
}

/** The first line of a text (a CSV header). */
export function firstLine(text: string): string {
  const end = text.search(/\r?\n/);
  return end < 0 ? text : text.slice(0, end);
}

/** File name without folders and without its last extension. */
export function stem(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** A bundle id from free text: lower-case letters, digits, `.`, `-`, `_`. */
function slugId(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '');
  return slug || 'benchmark';
}

/** A path segment safe inside a bundle (ids may contain `/` or spaces). */
export function safeSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_') || '_';
}

/** BCP-47 tag for text containing CJK script (kana → ja, Hangul → ko, Han only → zh); undefined otherwise. */
export function guessCjkLang(text: string): string | undefined {
  if (/[\u3040-\u30ff]/.test(text)) return 'ja';
  if (/[\uac00-\ud7af\u1100-\u11ff]/.test(text)) return 'ko';
  if (/[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/.test(text)) return 'zh';
  return undefined;
}

/** A string option from ctx.options, or undefined. */
export function stringOption(ctx: ImportContext, key: string): string | undefined {
  const v = ctx.options?.[key];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Manifest with user overrides (options id, name, version, license, description) over importer defaults. */
export function draftManifest(ctx: ImportContext, defaults: DraftManifest): DraftManifest {
  const id = stringOption(ctx, 'id');
  const description = stringOption(ctx, 'description') ?? defaults.description;
  return {
    ...defaults,
    id: slugId(id ?? defaults.id),
    name: stringOption(ctx, 'name') ?? defaults.name,
    version: stringOption(ctx, 'version') ?? defaults.version,
    license: stringOption(ctx, 'license') ?? defaults.license,
    ...(description ? { description } : {}),
  };
}

/** What an importer accumulates before the manifest is known. */
export interface DraftParts {
  readonly cases: BenchCase[];
  readonly images: Map<string, Uint8Array>;
  readonly files: Map<string, Uint8Array>;
  readonly skipped: SkippedCase[];
  /** Image bundle paths → the names the user's files gave them, for messages (see input-names.ts). */
  readonly inputNames: Map<string, string>;
}

export function newParts(): DraftParts {
  return { cases: [], images: new Map(), files: new Map(), skipped: [], inputNames: new Map() };
}

export function toDraft(manifest: DraftManifest, parts: DraftParts, issues: Issues): ImportDraft {
  return { manifest, ...parts, issues: issues.list };
}


/** A cell's value in quotes as written (not JSON-escaped, so the user sees the cell), cut if long: how import messages name a value. */
export function quoteValue(value: string): string {
  return `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
}

/**
 * A cell that may hold a list: a JSON array (JSONL, Parquet, or a CSV cell
 * like `["a","b"]`), else text split on `sep`. A data URI is one item (its
 * `,` and `;` are not separators). `text` turns each item into its string.
 */
export function listCell(cell: unknown, sep: RegExp | string, text: (v: unknown) => string): string[] {
  let value = cell;
  if (typeof cell === 'string' && cell.trim().startsWith('[')) {
    try {
      value = JSON.parse(cell);
    } catch {
      value = cell;
    }
  }
  if (Array.isArray(value)) return value.map(text).map((s) => s.trim()).filter(Boolean);
  const s = text(value).trim();
  if (!s) return [];
  return s.startsWith('data:') ? [s] : s.split(sep).map((x) => x.trim()).filter(Boolean);
}
