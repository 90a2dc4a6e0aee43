/**
 * Messages speak of files by the names the user gave them. An importer stores
 * an image under a bundle path (`images/<path in the CSV>`); a problem found
 * later (a DICOM that cannot be rendered, an image that fails its checks)
 * would otherwise name that path, which is in none of the user's files.
 */
import type { ImportIssue } from './importer.ts';

/** The issues with each bundle path in `names` (bundle path → name as given) replaced by the user's name. */
export function withInputNames<T extends ImportIssue>(issues: readonly T[], names: ReadonlyMap<string, string> | undefined): T[] {
  if (!names || names.size === 0) return [...issues];
  return issues.map((issue) => {
    const file = issue.location?.file;
    const given = file === undefined ? undefined : names.get(file);
    const field = issue.location?.field;
    const givenField = field === undefined ? undefined : names.get(field);
    if (given === undefined && givenField === undefined) return issue;
    const stored = given !== undefined ? file! : field!;
    const name = given ?? givenField!;
    return {
      ...issue,
      message: issue.message.split(stored).join(name),
      location: { ...issue.location, ...(given !== undefined ? { file: given } : {}), ...(givenField !== undefined ? { field: givenField } : {}) },
    };
  });
}
