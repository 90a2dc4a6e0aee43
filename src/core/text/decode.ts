/**
 * A user's file bytes as text, decoded the same way in the app and the CLI
 * (the browser's `Blob.text()` and Node's `'utf8'` disagree on UTF-16 and
 * both replace bad bytes with U+FFFD without a word).
 *
 * A byte-order mark decides first (UTF-8, UTF-16LE, UTF-16BE); UTF-16 without
 * one is recognised by its zero bytes; otherwise the bytes must be valid UTF-8.
 * Bytes that are not (a spreadsheet saved as CSV on Windows) are read as
 * Windows-1252, the superset of Latin-1 that browsers use for that label, and
 * the caller gets a notice naming the file, the first line that was not UTF-8
 * and how it now reads, to show before anything is stored. Why this and not a
 * refusal: see docs/decisions/text-encodings.md.
 */
import { InvalidInputError } from '../errors.ts';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DecodeNotice {
  readonly message: string;
  /** 1-based line of the first byte that was not UTF-8. */
  readonly line: number;
}

export interface DecodedText {
  readonly text: string;
  readonly encoding: TextEncodingName;
  /** Present when the bytes were not UTF-8 and were read as Windows-1252. */
  readonly notice?: DecodeNotice;
}

interface DecodeOptions {
  /**
   * The bytes are the first part of a file (a detector's peek): a character
   * cut at the end is not an error.
   */
  readonly partial?: boolean;
}

/** How many leading bytes the UTF-16 guess looks at. */
const SNIFF_BYTES = 4096;

/**
 * UTF-16 without a byte-order mark: text in Latin script has a zero in one
 * byte of nearly every pair and never in the other (UTF-8 text has no zero
 * bytes at all, binary files have them at both parities).
 */
function guessUtf16(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(bytes.length, SNIFF_BYTES) & ~1;
  if (n < 4) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros >= pairs * 0.3 && evenZeros <= pairs * 0.02) return 'utf-16le';
  if (evenZeros >= pairs * 0.3 && oddZeros <= pairs * 0.02) return 'utf-16be';
  return null;
}

/**
 * Offset of the first byte that is not part of valid UTF-8, or -1; with
 * `partial`, a sequence cut off by the end of the bytes counts as valid.
 */
export function firstInvalidUtf8(bytes: Uint8Array, partial = false): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return partial ? -1 : i;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += need + 1;
  }
  return -1;
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** The line of `text` that holds `index`, shortened around it, for a message. */
function excerpt(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const endAt = text.indexOf('\n', index);
  const line = text.slice(start, endAt < 0 ? undefined : endAt).replace(/\r$/, '');
  const at = index - start;
  const from = Math.max(0, at - 30);
  const to = Math.min(line.length, at + 30);
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

function decodeUtf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be', file: string, partial: boolean): DecodedText {
  const body = partial ? bytes.subarray(0, bytes.length & ~1) : bytes;
  try {
    // ignoreBOM: false drops a leading byte-order mark.
    return { text: new TextDecoder(encoding, { fatal: true }).decode(body, { stream: partial }), encoding };
  } catch {
    const lossy = new TextDecoder(encoding).decode(body);
    const bad = lossy.indexOf('\uFFFD');
    const line = lossy.slice(0, Math.max(0, bad)).split('\n').length;
    throw new InvalidInputError(
      `${file}: line ${line}: the file reads as ${encoding.toUpperCase()} but holds a broken character there; save it again as UTF-8 and import it again.`,
      { file, line },
    );
  }
}

/**
 * Decodes a file's bytes (see the module comment). Never returns U+FFFD for
 * bytes it could not read: non-UTF-8 bytes come back as Windows-1252 text with
 * a {@link DecodeNotice}; broken UTF-16 throws.
 * @throws InvalidInputError naming the file and line when UTF-16 text is broken.
 */
export function decodeBytes(bytes: Uint8Array, file: string, options: DecodeOptions = {}): DecodedText {
  const partial = options.partial === true;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decodeUtf8(bytes.subarray(3), file, partial);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decodeUtf16(bytes, 'utf-16le', file, partial);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decodeUtf16(bytes, 'utf-16be', file, partial);
  const utf16 = guessUtf16(bytes);
  if (utf16) return decodeUtf16(bytes, utf16, file, partial);
  return decodeUtf8(bytes, file, partial);
}

function decodeUtf8(bytes: Uint8Array, file: string, partial: boolean): DecodedText {
  const bad = firstInvalidUtf8(bytes, partial);
  if (bad < 0) return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: partial }), encoding: 'utf-8' };
  const text = new TextDecoder('windows-1252').decode(bytes);
  const line = lineAt(bytes, bad);
  // Windows-1252 maps one byte to one character, so the byte offset is the text index.
  const message =
    `${file} is not UTF-8 (line ${line} is the first with other bytes), so it was read as Windows-1252 (Latin-1): ` +
    `line ${line} now reads "${excerpt(text, bad)}". If that looks wrong, save the file as UTF-8 and import it again.`;
  return { text, encoding: 'windows-1252', notice: { message, line } };
}

/**
 * Decodes text that must be Unicode (UTF-8 or UTF-16, as NeuroEval writes
 * and JSON requires): run exports, result files, bundle members.
 * @throws InvalidInputError naming the file and the first line that is not.
 */
export function decodeUnicode(bytes: Uint8Array, file: string): string {
  const decoded = decodeBytes(bytes, file);
  if (decoded.notice) {
    throw new InvalidInputError(
      `${file}: line ${decoded.notice.line}: the file is not UTF-8 (bytes there are not); save it again as UTF-8 and import it again.`,
      { file, line: decoded.notice.line },
    );
  }
  return decoded.text;
}
