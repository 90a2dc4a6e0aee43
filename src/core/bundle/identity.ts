/**
 * The name and licence a benchmark is stored under, as the user sets them at
 * import. Formats without a manifest (a TSV, a CSV) would otherwise store
 * their importer's guess ("vlmeval", licence "unknown").
 */
import type { ImportDraft } from './importer.ts';

/** Longest name or licence kept: a title, not a document. */
const MAX_LENGTH = 200;

/** Checks a name typed by the user; the problem in words, or null when it is fine. */
export function checkBenchmarkName(name: string): string | null {
  const t = name.trim();
  if (t === '') return 'The benchmark needs a name.';
  if (t.length > MAX_LENGTH) return `The name is ${t.length} characters long; keep it to ${MAX_LENGTH}.`;
  return null;
}

/**
 * Checks a licence: an SPDX id (CC-BY-4.0, MIT, "CC-BY-NC-4.0 OR MIT") or the
 * licence's name in words; "unknown" is allowed and says so. Null when fine.
 */
export function checkLicence(licence: string): string | null {
  const t = licence.trim();
  if (t === '') return 'Give the licence (an SPDX id such as CC-BY-4.0, its name, or "unknown").';
  if (t.length > MAX_LENGTH) return `The licence is ${t.length} characters long; give its SPDX id or name (at most ${MAX_LENGTH}).`;
  return null;
}

/** The draft with the name and licence from the options (`name`, `license`), where given; a bad value is an error issue naming the field. */
export function withIdentity(draft: ImportDraft, options: Readonly<Record<string, unknown>> | undefined): ImportDraft {
  const name = typeof options?.name === 'string' ? options.name : undefined;
  const license = typeof options?.license === 'string' ? options.license : undefined;
  if (name === undefined && license === undefined) return draft;
  const problems = [
    ...(name !== undefined && checkBenchmarkName(name) ? [{ severity: 'error' as const, message: checkBenchmarkName(name)!, location: { field: 'name' } }] : []),
    ...(license !== undefined && checkLicence(license) ? [{ severity: 'error' as const, message: checkLicence(license)!, location: { field: 'license' } }] : []),
  ];
  if (problems.length) return { ...draft, issues: [...draft.issues, ...problems] };
  return {
    ...draft,
    manifest: { ...draft.manifest, ...(name !== undefined ? { name: name.trim() } : {}), ...(license !== undefined ? { license: license.trim() } : {}) },
  };
}
