/**
 * Safe ZIP reading for untrusted benchmark archives: refuses entry names that
 * escape the archive (`../`, absolute paths, drive letters), caps the number
 * of entries and the total uncompressed size *before* inflating (zip bombs
 * declare huge sizes or huge ratios), and checks the inflated sizes match
 * what the archive declared.
 */
import { unzipSync, type UnzipFileInfo } from 'fflate';
import { InvalidInputError } from '../errors.ts';

interface ZipLimits {
  /** Total uncompressed bytes of all entries. */
  readonly maxTotalBytes: number;
  /** Uncompressed bytes of one entry. */
  readonly maxEntryBytes: number;
  readonly maxEntries: number;
  /** Uncompressed ÷ compressed, per entry: deflate rarely exceeds ~1,000 on real files. */
  readonly maxRatio: number;
}

const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxTotalBytes: 4 * 1024 ** 3,
  maxEntryBytes: 1024 ** 3,
  maxEntries: 200_000,
  maxRatio: 1_000,
};

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
 * Reads every file entry of a ZIP into memory (directories are skipped).
 * @param file the archive's name, used in error messages.
 */
export function readZip(bytes: Uint8Array, file: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Map<string, Uint8Array> {
  let total = 0;
  let count = 0;
  const declared = new Map<string, number>();
  const filter = (info: UnzipFileInfo): boolean => {
    if (info.name.endsWith('/')) return false;
    const bad = unsafeEntryName(info.name);
    if (bad) throw new InvalidInputError(`The archive entry "${info.name}" ${bad}; refusing to read the archive.`, { file, field: info.name });
    if (declared.has(info.name)) throw new InvalidInputError(`The archive holds "${info.name}" twice.`, { file, field: info.name });
    count++;
    if (count > limits.maxEntries) throw new InvalidInputError(`The archive has more than ${limits.maxEntries.toLocaleString('en')} files.`, { file });
    if (info.originalSize > limits.maxEntryBytes) {
      throw new InvalidInputError(`"${info.name}" would unpack to ${info.originalSize.toLocaleString('en')} bytes, over the ${limits.maxEntryBytes.toLocaleString('en')}-byte limit per file.`, { file, field: info.name });
    }
    if (info.size > 0 && info.originalSize / info.size > limits.maxRatio) {
      throw new InvalidInputError(`"${info.name}" is compressed ${Math.round(info.originalSize / info.size).toLocaleString('en')}:1, which looks like a zip bomb.`, { file, field: info.name });
    }
    total += info.originalSize;
    if (total > limits.maxTotalBytes) {
      throw new InvalidInputError(`The archive would unpack to more than ${limits.maxTotalBytes.toLocaleString('en')} bytes; refusing to read it.`, { file });
    }
    declared.set(info.name, info.originalSize);
    return true;
  };
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, { filter });
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(`"${file}" is not a readable ZIP archive (truncated or corrupt): ${error instanceof Error ? error.message : String(error)}.`, { file });
  }
  const out = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(entries)) {
    if (data.length !== declared.get(name)) {
      throw new InvalidInputError(`"${name}" unpacked to ${data.length} bytes but the archive declared ${declared.get(name)}: the archive is corrupt.`, { file, field: name });
    }
    out.set(name, data);
  }
  return out;
}
