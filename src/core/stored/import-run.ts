/**
 * Importing a run exported on another machine (the run-export JSON), so
 * several laptops can split a long evaluation: the run must come from the
 * same benchmark content (content hash in its provenance) and answer only
 * items of its plan (run-import-check.ts); a run already here (same id)
 * gains the answers it lacks and keeps the ones it has. Reviews come with
 * their answers (a newer state of the same reviewer's review replaces the
 * stored one). Scores are not imported: score the merged run here.
 */
import type { Repositories } from '../db/index.ts';
import type { ReviewRecord } from '../model/review.ts';
import type { RunRecord } from '../runner/records.ts';
import { InvalidInputError } from '../errors.ts';
import { applyProvenancePatch, type Provenance, type ProvenanceMerge } from '../runner/provenance.ts';
import { runRecordOf, type RunExport } from '../scoring/io/run-export.ts';
import { checkRunImport, unknownAnswersError, type RunImportCheck } from './run-import-check.ts';

export interface ImportRunResult {
  readonly runId: string;
  readonly runName: string;
  readonly benchmarkId: string;
  /** The run was new here (else: merged into the one with the same id). */
  readonly created: boolean;
  readonly added: number;
  /** Answers this browser already had (kept as they are). */
  readonly kept: number;
  /** Answers for items outside the run's plan, left out because the user asked (`dropUnknown`). */
  readonly dropped: number;
  /** Reviews stored new, updated to a newer state, kept (already here, not older), or left out with their answers. */
  readonly reviews: { readonly added: number; readonly updated: number; readonly kept: number; readonly dropped: number };
  readonly status: RunRecord['status'];
}

/** What the preview shows: the same checks as the import, nothing stored. */
export interface RunImportPreview {
  readonly runName: string;
  readonly benchmarkName: string;
  readonly answers: number;
  /** Clinician reviews the file carries. */
  readonly reviews: number;
  /** Answers for items the run's plan does not have: the import refuses them unless told to leave them out. */
  readonly unknown: { readonly count: number; readonly message: string } | null;
  readonly candidates: { readonly id: string; readonly name: string }[];
  /** The file is shard `index` of `count` of a `neuroeval run --shard` run: the other shards' files join the same run. */
  readonly shard: { readonly index: number; readonly count: number } | null;
}

/** Two runs can share answers when they asked the same models the same way on the same benchmark. */
function compatible(a: RunRecord, b: RunRecord): string | null {
  const p = a.provenance;
  const q = b.provenance;
  const models = (x: Provenance) => x.models.map((m) => m.filesHash).sort().join(',');
  if (a.benchmarkId !== b.benchmarkId) return 'other benchmark';
  if (p.protocol.id !== q.protocol.id) return 'other protocol';
  if (models(p) !== models(q)) return 'other model files';
  if (JSON.stringify([...p.variants].sort()) !== JSON.stringify([...q.variants].sort()) || p.samples !== q.samples) return 'other variants or samples';
  if (JSON.stringify(p.sampling) !== JSON.stringify(q.sampling)) return 'other sampling settings';
  return null;
}

/** Local runs the export could be merged into (same benchmark, protocol, models, variants, samples, sampling). */
export async function mergeCandidates(repos: Repositories, e: RunExport): Promise<RunRecord[]> {
  if (!e.provenance) return [];
  const incoming = runRecordOf(e);
  const claimed = e.provenance.benchmark.contentHash;
  const benchmark = (await repos.benchmarks.list()).find((b) => b.contentHash === claimed);
  if (!benchmark) return [];
  return (await repos.runs.listByBenchmark(benchmark.id)).filter((r) => r.id !== incoming.id && compatible(r, { ...incoming, benchmarkId: benchmark.id }) === null);
}

/**
 * The preview of an import: throws exactly what {@link importRunExport} would
 * throw, and reports answers outside the plan with the message the import
 * would refuse them with.
 */
export async function previewRunImport(repos: Repositories, e: RunExport, file = 'run export'): Promise<RunImportPreview> {
  const check = await checkRunImport(repos, e, file);
  const candidates = await mergeCandidates(repos, e);
  return {
    runName: check.incoming.name,
    benchmarkName: check.benchmark.name,
    answers: e.responses.length,
    reviews: e.reviews?.length ?? 0,
    unknown: check.unknown.length ? { count: check.unknown.length, message: unknownAnswersError(check, file).message } : null,
    candidates: candidates.map((r) => ({ id: r.id, name: r.name })),
    shard: e.provenance?.shard ? { index: e.provenance.shard.index, count: e.provenance.shard.count } : null,
  };
}

interface ImportOptions {
  /** Merge the answers into this local run instead of storing the run as it is. */
  readonly into?: string;
  /** Leave out (and count) answers for items outside the run's plan instead of refusing the file. */
  readonly dropUnknown?: boolean;
}

export async function importRunExport(repos: Repositories, e: RunExport, file = 'run export', options: ImportOptions = {}): Promise<ImportRunResult> {
  const check: RunImportCheck = await checkRunImport(repos, e, file);
  if (check.unknown.length && !options.dropUnknown) throw unknownAnswersError(check, file);
  const { incoming, benchmark } = check;
  const targetId = options.into ?? incoming.id;
  const existing = await repos.runs.get(targetId);
  if (options.into && !existing) throw new InvalidInputError(`Run "${options.into}" to merge into no longer exists.`, { field: 'into' });
  if (existing) {
    const why = compatible(existing, { ...incoming, benchmarkId: benchmark.id });
    if (why) throw new InvalidInputError(`${file}: run: "${incoming.name}" cannot be merged into "${existing.name}" (${why}).`, { file, field: options.into ? 'into' : 'run.id' });
  }
  const outside = new Set(check.unknown.map((u) => u.index));
  const responses = e.responses.filter((_, i) => !outside.has(i)).map((r) => ({ ...r, runId: targetId, id: `${targetId}/${r.itemKey}` }));
  const { reviews, dropped: reviewsDropped } = reviewsFor(e, outside, targetId);
  const answeredNow = responses.filter((r) => !r.error);
  const answered = new Set([...(existing ? await repos.responses.itemKeysByRun(existing.id) : []), ...answeredNow.map((r) => r.itemKey)]);
  let base: RunRecord = existing ?? { ...incoming, benchmarkId: benchmark.id };
  if (existing && options.into) {
    // Merged halves of a split evaluation: the plan covers at least every answered item and case; the merge is recorded.
    const cases = new Set([...(await repos.responses.caseIdsByRun(existing.id)), ...answeredNow.map((r) => r.caseId)]);
    const merge: ProvenanceMerge = { runId: incoming.id, name: incoming.name, exportedAt: e.exportedAt ?? null, answers: responses.length };
    base = {
      ...existing,
      plan: { ...existing.plan, items: Math.max(existing.plan.items, answered.size), cases: Math.max(existing.plan.cases, cases.size) },
      provenance: { ...existing.provenance, merged: [...(existing.provenance.merged ?? []), merge] },
    };
  }
  const shard = incoming.provenance.shard;
  if (shard && !options.into) {
    // One shard of `neuroeval run --shard i/n`: every shard carries the run's id and whole plan, so the shards gather into
    // one run here, as `neuroeval merge` would join them; each is recorded, and the engines each ran on are kept.
    const merge: ProvenanceMerge = { runId: incoming.id, name: incoming.name, exportedAt: e.exportedAt ?? null, answers: responses.length, shard: { index: shard.index, count: shard.count } };
    const { shard: _shard, ...provenance } = base.provenance;
    let merged: Provenance = { ...provenance, merged: [...(provenance.merged ?? []), merge] };
    for (const [modelId, infos] of Object.entries(incoming.provenance.engines)) for (const info of infos) merged = applyProvenancePatch(merged, { engine: { modelId, info } });
    base = { ...base, provenance: merged };
  }
  const status: RunRecord['status'] = answered.size >= base.plan.items ? 'done' : base.status === 'running' ? 'paused' : base.status;
  const stored = await repos.runs.importWithResponses({ ...base, status, updatedAt: Date.now() }, responses, reviews);
  return {
    runId: targetId, runName: base.name, benchmarkId: benchmark.id, created: !existing, added: stored.added, kept: stored.kept, dropped: outside.size,
    reviews: { ...stored.reviews, dropped: reviewsDropped }, status,
  };
}

/**
 * The file's reviews re-keyed to the answers as stored here (answer ids are
 * `${runId}/${itemKey}`, review ids `${answerId}::${reviewerId}`, as the
 * reviews repository makes them); reviews of answers left out go with them.
 * checkRunImport has made sure each review's answer is in the file.
 */
function reviewsFor(e: RunExport, outside: ReadonlySet<number>, runId: string): { reviews: ReviewRecord[]; dropped: number } {
  const answers = new Map(e.responses.map((r, i) => [r.id, { index: i, itemKey: r.itemKey }]));
  const reviews: ReviewRecord[] = [];
  let dropped = 0;
  for (const r of e.reviews ?? []) {
    const answer = answers.get(r.responseId)!;
    if (outside.has(answer.index)) {
      dropped++;
      continue;
    }
    const responseId = `${runId}/${answer.itemKey}`;
    reviews.push({ ...r, id: `${responseId}::${r.reviewerId}`, responseId, runId });
  }
  return { reviews, dropped };
}
