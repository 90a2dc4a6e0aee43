/**
 * The scored-answers CSV of a benchmark (the results page's "Download CSV"):
 * one formula-safe row per answer with its primary metric and where the value
 * came from. Built from score rows and run names only, so nothing of a run's
 * configuration (endpoints, let alone keys) can reach it.
 */
import { compareIds } from '../text/compare-ids.ts';
import { toCsv } from './csv.ts';
import type { LoadedResults } from './overview.ts';

const HEADER = ['run', 'case', 'question', 'model', 'variant', 'sample', 'protocol', 'metric', 'value', 'decided_by', 'source_id', 'confidence', 'proposed_error_classes', 'all_metrics'];

/** Rows grouped by run (in the runs' order), then cases and questions in natural order (case_2 before case_10), then model, variant, sample. */
export function scoresCsv(data: Pick<LoadedResults, 'runs' | 'scored'>): string {
  const runNames = new Map(data.runs.map((r) => [r.id, r.name]));
  const rows = data.scored.flatMap((s) => [...s.items].sort((a, b) =>
    compareIds(a.caseId, b.caseId) || compareIds(a.questionId, b.questionId) || compareIds(a.modelId, b.modelId) || compareIds(a.variant, b.variant) || a.sample - b.sample,
  ).map((it) => {
    const m = it.primary ? it.metrics[it.primary] : undefined;
    return [
      runNames.get(it.runId) ?? it.runId, it.caseId, it.questionId, it.modelId, it.variant, it.sample, it.protocolId, it.primary ?? '', m?.value ?? null, m?.source ?? '', m?.sourceId ?? '',
      it.confidence, (it.taxonomy?.classes ?? []).join(' '), Object.entries(it.metrics).map(([k, v]) => `${k}=${v.value ?? 'NA'}`).join('; '),
    ];
  }));
  return toCsv(HEADER, rows);
}
