/**
 * Safe ZIP reading for untrusted benchmark archives. An archive is judged by
 * what it actually holds, not by what it says:
 *
 * - entry names that escape the archive (`../`, absolute paths, drive
 *   letters), duplicates, encryption, unknown compression and overlapping
 *   entries (the trick behind "non-recursive" zip bombs) are refused;
 * - the declared sizes are checked against the limits before anything is
 *   inflated (entry count, bytes per entry, bytes in total, and the ratio of
 *   unpacked to packed bytes, per entry and for the whole archive);
 * - each entry is then inflated in small steps into a buffer of its declared
 *   size and stopped the moment it produces one byte more, so a header that
 *   under-declares cannot smuggle past the limits (the running total never
 *   exceeds what was checked), and an entry that produces less, or whose
 *   CRC-32 differs, is refused with its name.
 *
 * Memory is therefore bounded by the limits, not by the archive's claims.
 */
import { Inflate } from 'fflate';
import { InvalidInputError, throwIfAborted } from '../errors.ts';
import { Crc32 } from '../hash/crc32.ts';
import { formatBytes } from '../text/units.ts';
import { readZipDirectory, type ZipEntry } from './zip-directory.ts';

export interface ZipLimits {
  /** Bytes all entries together may unpack to. */
  readonly maxTotalBytes: number;
  /** Bytes one entry may unpack to. */
  readonly maxEntryBytes: number;
  readonly maxEntries: number;
  /**
   * Unpacked ÷ packed bytes allowed, per entry and for the whole archive.
   * Images, DICOM and volumes deflate 1–10:1 and text 5–20:1; only long runs
   * of one byte reach deflate's ceiling of ~1,000:1, which is what bombs use.
   */
  readonly maxRatio: number;
  /** Entries (and archives) that unpack to no more than this are exempt from the ratio (a small, very regular text file may compress far better). */
  readonly ratioAllowanceBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxTotalBytes: 2 * 1024 ** 3,
  maxEntryBytes: 1024 ** 3,
  maxEntries: 200_000,
  maxRatio: 100,
  ratioAllowanceBytes: 16 * 1024 ** 2,
};

/**
 * Compressed input is fed this many bytes at a time: deflate expands at most
 * ~1,032:1, so one step produces at most ~16 MiB before the next check.
 */
const INPUT_STEP = 16 * 1024;

/** Why an entry name is unsafe, or null when it is fine. */
export function unsafeEntryName(name: string): string | null {
  if (name.includes('\\')) return 'uses backslashes';
  if (name.startsWith('/')) return 'is an absolute path';
  if (/^[a-zA-Z]:/.test(name)) return 'names a drive';
  if (name.split('/').some((part) => part === '..')) return 'climbs out of the archive with ".."';
  if (name.includes('\0')) return 'contains a NUL character';
  return null;
}

/**
 * ZIP limits from import options (`zipLimits: {maxRatio: 500, …}`), over the
 * defaults. A value that is not a positive number is an error naming the field.
 */
export function zipLimitsFrom(options: Readonly<Record<string, unknown>> | undefined): ZipLimits {
  const given = options?.zipLimits;
  if (given === undefined) return DEFAULT_ZIP_LIMITS;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new InvalidInputError('"zipLimits" must be an object such as {"maxRatio": 500}.', { field: 'zipLimits' });
  const out: Record<string, number> = { ...DEFAULT_ZIP_LIMITS };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_ZIP_LIMITS)) throw new InvalidInputError(`Unknown ZIP limit "${key}". Known: ${Object.keys(DEFAULT_ZIP_LIMITS).join(', ')}.`, { field: `zipLimits.${key}` });
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new InvalidInputError(`The ZIP limit "${key}" must be a positive number.`, { field: `zipLimits.${key}` });
    out[key] = value;
  }
  return out as unknown as ZipLimits;
}

const n = (x: number) => x.toLocaleString('en');

/** Refuses, before anything is inflated, an archive whose listing breaks a rule or a limit. */
function checkDirectory(entries: readonly ZipEntry[], archiveBytes: number, file: string, limits: ZipLimits): ZipEntry[] {
  const refuse = (message: string, field?: string) => new InvalidInputError(message, field ? { file, field } : { file });
  const files: ZipEntry[] = [];
  const names = new Set<string>();
  let total = 0;
  for (const e of entries) {
    // Folders hold nothing; their entries are never inflated.
    if (e.name.endsWith('/')) continue;
    const bad = unsafeEntryName(e.name);
    if (bad) throw refuse(`The archive entry "${e.name}" ${bad}; refusing to read the archive.`, e.name);
    if (names.has(e.name)) throw refuse(`The archive holds "${e.name}" twice.`, e.name);
    names.add(e.name);
    if (names.size > limits.maxEntries) throw refuse(`The archive has more than ${n(limits.maxEntries)} files.`);
    if (e.encrypted) throw refuse(`"${e.name}" is encrypted; NeuroEval reads only unencrypted archives.`, e.name);
    if (e.method !== 0 && e.method !== 8) throw refuse(`"${e.name}" uses ZIP compression method ${e.method}; only stored (0) and deflate (8) can be read. Re-create the archive with a standard ZIP tool.`, e.name);
    if (e.method === 0 && e.compressedSize !== e.size) {
      throw refuse(`"${e.name}" is stored uncompressed but declares ${n(e.size)} bytes unpacked and ${n(e.compressedSize)} packed: the archive is corrupt or forged.`, e.name);
    }
    if (e.dataStart + e.compressedSize > archiveBytes) throw refuse(`The data of "${e.name}" runs past the end of the archive: it is truncated or forged.`, e.name);
    if (e.size > limits.maxEntryBytes) {
      throw refuse(`"${e.name}" would unpack to ${n(e.size)} bytes, over the ${n(limits.maxEntryBytes)}-byte limit per file.`, e.name);
    }
    if (e.size > limits.ratioAllowanceBytes && e.size > limits.maxRatio * e.compressedSize) {
      throw refuse(
        e.compressedSize === 0
          ? `"${e.name}" declares ${n(e.size)} bytes from 0 compressed bytes, which looks like a zip bomb; refusing the archive.`
          : `"${e.name}" is compressed ${n(Math.round(e.size / e.compressedSize))}:1 (${formatBytes(e.size)} from ${formatBytes(e.compressedSize)}), which looks like a zip bomb: files over ${formatBytes(limits.ratioAllowanceBytes)} may be compressed at most ${n(limits.maxRatio)}:1.`,
        e.name,
      );
    }
    total += e.size;
    if (total > limits.maxTotalBytes) throw refuse(`The archive would unpack to more than ${n(limits.maxTotalBytes)} bytes; refusing to read it.`);
    files.push(e);
  }
  // Two entries reading the same bytes let a small archive unpack many times over; no ZIP tool writes that.
  const byStart = [...files].sort((a, b) => a.dataStart - b.dataStart);
  for (let i = 1; i < byStart.length; i++) {
    const prev = byStart[i - 1]!;
    const cur = byStart[i]!;
    if (cur.dataStart < prev.dataStart + prev.compressedSize) {
      throw refuse(`"${cur.name}" and "${prev.name}" share the same bytes in the archive (overlapping entries, a zip-bomb technique); refusing the archive.`, cur.name);
    }
  }
  if (total > limits.ratioAllowanceBytes && total > limits.maxRatio * archiveBytes) {
    throw refuse(
      `The archive would unpack to ${formatBytes(total)} from ${formatBytes(archiveBytes)} (${n(Math.round(total / archiveBytes))}:1), which looks like a zip bomb: an archive over ${formatBytes(limits.ratioAllowanceBytes)} unpacked may be compressed at most ${n(limits.maxRatio)}:1.`,
    );
  }
  return files;
}

/** A sentinel thrown from the inflater's callback to stop it at once. */
class Overflow extends Error {}

/** Inflates one entry into exactly its declared size, stopping the moment it would produce more. */
function inflateEntry(archive: Uint8Array, e: ZipEntry, file: string): Uint8Array {
  const where = { file, field: e.name };
  const packed = archive.subarray(e.dataStart, e.dataStart + e.compressedSize);
  const crc = new Crc32();
  let out: Uint8Array;
  let size: number;
  if (e.method === 0) {
    out = packed.slice();
    size = out.length;
    crc.update(out);
  } else {
    out = new Uint8Array(e.size);
    size = 0;
    const inflater = new Inflate((chunk) => {
      if (size + chunk.length > e.size) throw new Overflow();
      out.set(chunk, size);
      crc.update(chunk);
      size += chunk.length;
    });
    try {
      // An empty deflated entry may have no data at all; the size check below catches one that claims more.
      for (let at = 0; at < packed.length; at += INPUT_STEP) {
        const end = Math.min(packed.length, at + INPUT_STEP);
        inflater.push(packed.subarray(at, end), end === packed.length);
      }
    } catch (error) {
      if (error instanceof Overflow) {
        throw new InvalidInputError(`"${e.name}" holds more than the ${n(e.size)} bytes the archive declares for it; it was stopped there. The archive is corrupt or forged.`, where);
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new InvalidInputError(`"${e.name}" cannot be unpacked: its compressed data is ${/unexpected EOF/i.test(detail) ? 'cut short' : `corrupt (${detail})`}.`, where);
    }
  }
  if (size !== e.size) {
    throw new InvalidInputError(`"${e.name}" unpacked to ${n(size)} bytes but the archive declared ${n(e.size)}: the archive is corrupt.`, where);
  }
  if (crc.value !== e.crc32) {
    throw new InvalidInputError(`"${e.name}" does not match its CRC-32 checksum: the archive is damaged or was altered.`, where);
  }
  return out;
}

/**
 * Reads every file entry of a ZIP into memory (folders are skipped).
 * @param file the archive's name, used in error messages.
 */
export function readZip(bytes: Uint8Array, file: string, limits: Partial<ZipLimits> = {}, signal?: AbortSignal): Map<string, Uint8Array> {
  const all = { ...DEFAULT_ZIP_LIMITS, ...limits };
  const entries = checkDirectory(readZipDirectory(bytes, file), bytes.length, file, all);
  const out = new Map<string, Uint8Array>();
  for (const e of entries) {
    throwIfAborted(signal);
    out.set(e.name, inflateEntry(bytes, e, file));
  }
  return out;
}
