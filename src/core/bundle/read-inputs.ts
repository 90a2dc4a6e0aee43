/**
 * The user's files as importers read them, the same in the app and the CLI:
 * sizes checked before a byte is read (a file past what a browser or Node can
 * hold in one piece gets a message naming it, not the runtime's "could not be
 * read, typically due to permission problems"), text decoded by
 * core/text/decode.ts whatever the caller's own `text()` does, and every
 * decoding notice kept for the preview.
 */
import { InvalidInputError } from '../errors.ts';
import { decodeBytes } from '../text/decode.ts';
import { extensionOf, type ImportIssue, type InputFile } from './importer.ts';

/** Largest file read whole: Chromium's Blob reads and Node's readFile both stop at 2 GiB − 1. */
const MAX_FILE_BYTES = 2 ** 31 - 1;
/** Largest text file: its text must fit one JavaScript string (V8 allows 2²⁹ − 24 characters, never more than the bytes). */
const MAX_TEXT_BYTES = 2 ** 29 - 24;

const TEXT_EXTENSIONS: ReadonlySet<string> = new Set(['csv', 'tsv', 'txt', 'json', 'jsonl', 'ndjson', 'md']);

function sizeText(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${Math.round(bytes / 2 ** 20)} MB`;
}

function tooLarge(file: string, size: number, limit: number, what: string): InvalidInputError {
  return new InvalidInputError(
    `${file} is ${sizeText(size)}, larger than the ${sizeText(limit)} a ${what} can be (it is read whole, in this browser or by the CLI); nothing was read. Split it into smaller files.`,
    { file },
  );
}

/** Refuses a file too large to read, by its size alone (before reading it). */
export function checkInputSize(path: string, size: number): void {
  const text = TEXT_EXTENSIONS.has(extensionOf(path));
  if (text && size > MAX_TEXT_BYTES) throw tooLarge(path, size, MAX_TEXT_BYTES, 'text file');
  // Parquet is read a row group at a time (importers/parquet-source.ts), never whole.
  if (size > MAX_FILE_BYTES && extensionOf(path) !== 'parquet') throw tooLarge(path, size, MAX_FILE_BYTES, 'file');
}

/** A read the runtime refused (permissions, a file removed or changed since it was picked), named. */
function unreadable(file: string, error: unknown): InvalidInputError {
  const why = error instanceof Error ? error.message : String(error);
  return new InvalidInputError(`${file} could not be read (${why}). Check that it still exists and can be opened, then choose it again.`, { file });
}

/**
 * The files with sizes checked up front, reads named on failure, and text
 * decoded by the shared decoder; a decoding notice (not UTF-8, read as
 * Windows-1252) is added to `notices` once per file.
 * @throws InvalidInputError naming the first file that is too large.
 */
export function readableInputs(files: readonly InputFile[], notices?: ImportIssue[]): InputFile[] {
  for (const f of files) checkInputSize(f.path, f.size);
  const noted = new Set<string>();
  return files.map((f) => {
    const bytes = async (): Promise<Uint8Array> => {
      try {
        return await f.bytes();
      } catch (error) {
        if (error instanceof InvalidInputError) throw error;
        throw unreadable(f.path, error);
      }
    };
    const slice = f.slice?.bind(f);
    return {
      path: f.path,
      size: f.size,
      bytes,
      ...(slice
        ? {
            slice: async (start: number, end: number): Promise<Uint8Array> => {
              try {
                return await slice(start, end);
              } catch (error) {
                throw unreadable(f.path, error);
              }
            },
          }
        : {}),
      text: async () => {
        if (f.size > MAX_TEXT_BYTES) throw tooLarge(f.path, f.size, MAX_TEXT_BYTES, 'text file');
        const decoded = decodeBytes(await bytes(), f.path);
        if (decoded.notice && notices && !noted.has(f.path)) {
          noted.add(f.path);
          notices.push({ severity: 'warning', message: decoded.notice.message, location: { file: f.path, line: decoded.notice.line } });
        }
        return decoded.text;
      },
    };
  });
}
