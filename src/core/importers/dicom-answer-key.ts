/**
 * The answer key of DICOM imported by itself. A hospital's export names its
 * series only by folders (the UIDs are dropped at import and case ids are
 * salted), so a key row's `case_id` names a series by the folder holding its
 * files, or by one of its files, as a path inside the imported folder or ZIP:
 * `patient01/MR_T2` or `patient01/MR_T2/IM0001`. Paths match by whole trailing
 * segments, so the name of the folder picked (which the browser puts in front
 * of every path) may be left out.
 *
 * The paths are used here and dropped: the rows come out keyed by the cases'
 * own ids, and nothing stored says which folder a case came from.
 */
import type { KeyRow } from './answer-key.ts';
import type { Issues } from './support.ts';

/** `a\b/./c/` → `a/b/c`. */
function segments(path: string): string[] {
  return path
    .replaceAll('\\', '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
}

/** Whether `path` ends with the segments of `tail`. */
function endsWith(path: readonly string[], tail: readonly string[]): boolean {
  if (tail.length === 0 || tail.length > path.length) return false;
  const offset = path.length - tail.length;
  return tail.every((s, i) => path[offset + i] === s);
}

/**
 * Rewrites each row's `case_id` (a folder or file path) to the id of the one
 * case whose files it names. A row naming no series, or a folder holding
 * several, is an error naming its line, and is left out.
 */
export function resolveSeriesRows(rows: readonly KeyRow[], caseFiles: ReadonlyMap<string, readonly string[]>, issues: Issues): KeyRow[] {
  const cases = [...caseFiles].map(([id, paths]) => ({
    id,
    files: paths.map(segments),
    folders: [...new Set(paths.map((p) => segments(p).slice(0, -1).join('/')))].map((f) => f.split('/').filter(Boolean)),
  }));
  const out: KeyRow[] = [];
  for (const row of rows) {
    const tail = segments(row.caseId);
    const byFile = cases.filter((c) => c.files.some((f) => endsWith(f, tail)));
    const matches = byFile.length ? byFile : cases.filter((c) => c.folders.some((f) => endsWith(f, tail)));
    if (matches.length === 0) {
      issues.error(`"${row.caseId}" is neither a folder holding a DICOM series nor one of its files.`, { ...row.location, field: 'case_id' });
      continue;
    }
    if (matches.length > 1) {
      issues.error(`"${row.caseId}" holds ${matches.length} series; name a file of the one meant (for example "${row.caseId}/${cases.find((c) => c.id === matches[0]!.id)!.files[0]!.at(-1)}").`, { ...row.location, field: 'case_id' });
      continue;
    }
    out.push({ ...row, caseId: matches[0]!.id });
  }
  return out;
}
