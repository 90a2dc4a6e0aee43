/**
 * What differs between a bundle and the stored benchmark with the same id,
 * so a re-import of a changed file can say more than "already stored":
 * cases changed, added and removed, and the manifest fields that differ.
 */
import type { BenchmarkRecord, CaseRecord } from './records.ts';
import { canonicalJson } from './canonical.ts';
import type { Bundle } from './types.ts';

export interface StoredDifference {
  readonly storedName: string;
  readonly changed: number;
  readonly added: number;
  readonly removed: number;
  /** Manifest fields that differ, in words ("name", "licence", "version", "description"). */
  readonly fields: readonly string[];
}

/** Compares a finished bundle with the stored record and cases of the same id. */
export function storedDifference(stored: BenchmarkRecord, storedCases: readonly CaseRecord[], bundle: Bundle): StoredDifference {
  const before = new Map(storedCases.map(({ benchmarkId: _b, ...c }) => [c.id, canonicalJson(c)]));
  let changed = 0;
  let added = 0;
  for (const c of bundle.cases) {
    const old = before.get(c.id);
    if (old === undefined) added++;
    else if (old !== canonicalJson(c)) changed++;
    before.delete(c.id);
  }
  const m = bundle.manifest;
  const fields = [
    ...(m.name !== stored.name ? ['name'] : []),
    ...(m.license !== stored.license ? ['licence'] : []),
    ...(m.version !== stored.version ? ['version'] : []),
    ...((m.description ?? '') !== stored.description ? ['description'] : []),
  ];
  return { storedName: stored.name, changed, added, removed: before.size, fields };
}

/** The difference in one sentence fragment: "3 cases changed, 2 added; the licence differs". */
export function describeDifference(d: StoredDifference): string {
  const counts = [
    ...(d.changed ? [`${d.changed} case${d.changed === 1 ? '' : 's'} changed`] : []),
    ...(d.added ? [`${d.added} added`] : []),
    ...(d.removed ? [`${d.removed} removed`] : []),
  ];
  const fields = d.fields.length ? [`the ${d.fields.join(' and ')} ${d.fields.length === 1 ? 'differs' : 'differ'}`] : [];
  const parts = [counts.join(', '), ...fields].filter(Boolean);
  // Same cases and manifest fields, yet another hash: images, files or protocol settings differ.
  return parts.length ? parts.join('; ') : 'the same cases, but their images, files or protocol settings differ';
}
