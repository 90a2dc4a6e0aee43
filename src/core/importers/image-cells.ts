/**
 * What an image cell of a data file holds, in the forms datasets publish:
 * Hugging Face's image struct `{bytes, path}` (Parquet; in JSON its bytes are
 * base64 or a list of numbers), a path into the picked folder or a ZIP among
 * the inputs, a data URI, bare base64, or a list of any of these (several
 * images, in order). Paths in one cell may also be separated by `|`.
 */
import { decodeBase64, identifyImage } from './image-data.ts';

export type ImageCell =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; /** The struct's `path`, a name only (never looked up). */ readonly name?: string }
  | { readonly kind: 'data'; readonly uri: string }
  | { readonly kind: 'path'; readonly ref: string };

/** Bare base64 of an image: long enough, all base64, and its bytes are an image a model can take. */
function base64Image(text: string): Uint8Array | null {
  if (text.length < 32 || /[\s.]/.test(text.slice(0, 32))) return null;
  const bytes = decodeBase64(text);
  return bytes && !('error' in identifyImage(bytes)) ? bytes : null;
}

function bytesOf(v: unknown): Uint8Array | null | 'bad' {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return v.length ? v : null;
  if (typeof v === 'string') return v.trim() ? (decodeBase64(v) ?? 'bad') : null;
  if (Array.isArray(v)) return v.every((x) => Number.isInteger(x) && x >= 0 && x < 256) ? (v.length ? Uint8Array.from(v as number[]) : null) : 'bad';
  // Node's Buffer serialised to JSON: {"type":"Buffer","data":[…]}
  if (typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') return bytesOf((v as { data?: unknown }).data);
  return 'bad';
}

/** The images a cell names, in order; `error` says why a cell cannot be read. */
export function imageCells(value: unknown): ImageCell[] | { readonly error: string } {
  if (value === null || value === undefined) return [];
  if (value instanceof Uint8Array) return value.length ? [{ kind: 'bytes', bytes: value }] : [];
  if (Array.isArray(value)) {
    const out: ImageCell[] = [];
    for (const v of value) {
      const cells = imageCells(v);
      if ('error' in cells) return cells;
      out.push(...cells);
    }
    return out;
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (!('bytes' in o) && !('path' in o)) return { error: `holds an object with neither "bytes" nor "path" (keys: ${Object.keys(o).slice(0, 5).join(', ') || 'none'})` };
    const path = typeof o.path === 'string' && o.path.trim() ? o.path.trim() : undefined;
    const bytes = bytesOf(o.bytes);
    if (bytes === 'bad') return { error: 'has "bytes" that are neither binary, base64 nor a list of byte values' };
    if (bytes) return [{ kind: 'bytes', bytes, ...(path ? { name: path } : {}) }];
    return path ? [{ kind: 'path', ref: path }] : [];
  }
  if (typeof value !== 'string') return { error: `holds a ${typeof value}, not an image, a path or a list of them` };
  const t = value.trim();
  if (!t) return [];
  if (/^data:/i.test(t)) return [{ kind: 'data', uri: t }];
  if (t.startsWith('[') && t.endsWith(']')) {
    try {
      return imageCells(JSON.parse(t));
    } catch {
      // A Python list repr (single quotes): paths and base64 hold no quotes.
      const items = [...t.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
      if (items.length) return imageCells(items);
    }
  }
  const b64 = base64Image(t);
  if (b64) return [{ kind: 'bytes', bytes: b64 }];
  return t.split('|').map((x) => x.trim()).filter(Boolean).map((ref) => ({ kind: 'path', ref }));
}

/** The path references of a cell (for resolving every path of a table at once); unreadable cells give none. */
export function pathRefs(value: unknown): string[] {
  const cells = imageCells(value);
  return 'error' in cells ? [] : cells.flatMap((c) => (c.kind === 'path' ? [c.ref] : []));
}
