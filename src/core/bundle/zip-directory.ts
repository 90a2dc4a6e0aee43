/**
 * The table of contents of a ZIP archive, read from its central directory
 * (with ZIP64 where sizes or counts need it) and checked against the archive's
 * real length. Nothing here inflates anything: zip-read.ts decides, from what
 * is listed here, what may be inflated, and then checks every entry holds
 * exactly what is listed.
 */
import { InvalidInputError } from '../errors.ts';

/** One file or folder of the archive, as its central directory describes it. */
export interface ZipEntry {
  readonly name: string;
  /** 0 = stored, 8 = deflate; anything else is refused when read. */
  readonly method: number;
  readonly encrypted: boolean;
  readonly crc32: number;
  readonly compressedSize: number;
  /** What the archive declares the entry unpacks to. */
  readonly size: number;
  /** Where the entry's compressed bytes start in the archive (after its local header). */
  readonly dataStart: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

function corrupt(file: string, detail: string, field?: string): InvalidInputError {
  return new InvalidInputError(`"${file}" is not a readable ZIP archive (truncated or corrupt): ${detail}.`, field ? { file, field } : { file });
}

/** Entry names: UTF-8 when they decode as such (what every current tool writes), else the old single-byte code page. */
function decodeName(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return latin1.decode(bytes);
  }
}

/** A 64-bit little-endian field, refused when it cannot be an offset or size in this archive. */
function u64(view: DataView, at: number, file: string): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(file, 'a ZIP64 size or offset is impossibly large');
  return Number(value);
}

/**
 * Finds the end-of-central-directory record: the last one, within the final
 * 64 KiB + 22 bytes (the comment's maximum). A record that sits inside the
 * comment of an earlier one is a forgery (or a damaged archive): an archive
 * comment is free text, and a reader that trusted the record planted there
 * would list files other than the archive's (or none), so it is refused.
 */
function findEnd(bytes: Uint8Array, view: DataView, file: string): number {
  const lowest = Math.max(0, bytes.length - 22 - U16_MAX);
  const fits = (at: number) => view.getUint32(at, true) === EOCD && at + 22 + view.getUint16(at + 20, true) <= bytes.length;
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (!fits(at)) continue;
    for (let outer = at - 1; outer >= lowest; outer--) {
      if (fits(outer) && outer + 22 <= at && outer + 22 + view.getUint16(outer + 20, true) >= at + 22) {
        throw corrupt(file, 'its end-of-archive record is damaged or forged (one lies inside the comment of another), so its list of files cannot be trusted');
      }
    }
    return at;
  }
  throw corrupt(file, 'no end-of-archive record was found');
}

/** Reads the central directory. Throws {@link InvalidInputError} naming the archive (and entry) when it is damaged. */
export function readZipDirectory(bytes: Uint8Array, file: string): ZipEntry[] {
  if (bytes.length < 22) throw corrupt(file, 'it is too short to be a ZIP file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(bytes, view, file);
  if (view.getUint16(end + 4, true) !== 0 || view.getUint16(end + 6, true) !== 0) {
    throw new InvalidInputError(`"${file}" is one part of a multi-part (spanned) ZIP archive, which cannot be read; join the parts into one ZIP first.`, { file });
  }
  let count = view.getUint16(end + 10, true);
  let dirSize = view.getUint32(end + 12, true);
  let dirStart = view.getUint32(end + 16, true);
  if (count === U16_MAX || dirSize === U32_MAX || dirStart === U32_MAX) {
    // ZIP64: the real values are in a second record, found through the locator just before this one.
    const locator = end - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) throw corrupt(file, 'the ZIP64 end-of-archive locator is missing');
    const record = u64(view, locator + 8, file);
    if (record + 56 > bytes.length || view.getUint32(record, true) !== ZIP64_EOCD) throw corrupt(file, 'the ZIP64 end-of-archive record is missing');
    count = u64(view, record + 32, file);
    dirSize = u64(view, record + 40, file);
    dirStart = u64(view, record + 48, file);
  }
  if (dirStart + dirSize > bytes.length) throw corrupt(file, 'the list of files lies beyond the end of the archive');
  if (count === 0 && view.getUint32(0, true) === LOCAL) {
    throw corrupt(file, 'its end-of-archive record lists no files, but the archive begins with one, so the record is damaged or forged');
  }
  // Each central directory record is at least 46 bytes: a count the listing cannot hold is a lie.
  if (count * 46 > dirSize) throw corrupt(file, `it claims ${count.toLocaleString('en')} files, more than its list of files can hold`);

  const entries: ZipEntry[] = [];
  let at = dirStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dirStart + dirSize || view.getUint32(at, true) !== CENTRAL) throw corrupt(file, `the list of files is damaged at entry ${i + 1}`);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let localOffset = view.getUint32(at + 42, true);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > dirStart + dirSize) throw corrupt(file, `the list of files is damaged at entry ${i + 1}`);
    const name = decodeName(bytes.subarray(at + 46, at + 46 + nameLength));
    // ZIP64 extra field (id 1): 64-bit values for exactly the fields set to 0xFFFFFFFF, in this order.
    let extra = at + 46 + nameLength;
    while (extra + 4 <= at + 46 + nameLength + extraLength) {
      const id = view.getUint16(extra, true);
      const length = view.getUint16(extra + 2, true);
      if (id === 1) {
        let p = extra + 4;
        const take = () => {
          if (p + 8 > extra + 4 + length) throw corrupt(file, `the ZIP64 sizes of "${name}" are cut short`, name);
          const v = u64(view, p, file);
          p += 8;
          return v;
        };
        if (size === U32_MAX) size = take();
        if (compressedSize === U32_MAX) compressedSize = take();
        if (localOffset === U32_MAX) localOffset = take();
      }
      extra += 4 + length;
    }
    entries.push({ name, method, encrypted: (flags & 1) !== 0, crc32: crc, compressedSize, size, dataStart: localDataStart(bytes, view, localOffset, name, file) });
    at = next;
  }
  return entries;
}

/** The entry's data follows its local header, whose name and extra field may differ in length from the central copy. */
function localDataStart(bytes: Uint8Array, view: DataView, offset: number, name: string, file: string): number {
  if (offset + 30 > bytes.length || view.getUint32(offset, true) !== LOCAL) throw corrupt(file, `the header of "${name}" is missing`, name);
  return offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
}
