/**
 * The HTML report's input for one scored run export, without a database: the
 * results the app would load after importing the run and scoring it once
 * (one run, one score set), summarised as the app's report export does
 * (leaderboard metric, pairwise tests per question, the headline breakdowns
 * plus the technical ones the cases carry). `neuroeval report` uses it.
 */
import { modelNamesOf } from './model-names.ts';
import { readerName } from '../readers/identity.ts';
import type { BenchCase } from '../bundle/types.ts';
import type { BenchmarkRecord } from '../bundle/records.ts';
import type { ScoreRecord } from '../scoring/run/records.ts';
import { encoderProvenance } from '../scoring/metrics/bertscore-layers.ts';
import type { RunExport } from '../scoring/io/run-export.ts';
import type { RunScoringResult } from '../scoring/run/score-run.ts';
import { agreementReport } from './agreement.ts';
import { answerTableRow } from './answers.ts';
import { breakdown, dimensionsFor, type Dimension } from './breakdowns.ts';
import { compareRows } from './comparisons.ts';
import type { ScoredRun } from './leaderboard.ts';
import { overviewOf, type LoadedResults } from './overview.ts';
import { failureGallery } from './gallery.ts';
import { joinAnswers } from './safety-input.ts';
import { safetyReport } from './safety.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { buildHtmlReport } from './report-html.ts';
import { TECHNICAL_TAGS } from './technical-tags.ts';

export type ReportInput = Parameters<typeof buildHtmlReport>[0];

/** The breakdowns every report shows, as the app's report export (workers/results.worker.ts). */
const HEADLINE_BREAKDOWNS: readonly Dimension[] = ['taskFamily', 'diseaseGroup'];

/**
 * The results of one run export and its scores, shaped as the app loads them
 * from storage (`loadResults`): the benchmark as far as the export names it,
 * the run, its score set as version 1, its reviews and cases.
 */
export function resultsOfRunExport(e: RunExport, scores: RunScoringResult, scoredAt: number): LoadedResults {
  const run = e.run;
  const cases: BenchCase[] = [...(e.cases ?? [])];
  const setId = `${run.id}/v1`;
  const items: ScoreRecord[] = scores.items.map((it) => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: run.id }));
  const bench = e.provenance?.benchmark;
  // Only what the report reads of a benchmark is known from an export; the rest stays empty.
  const benchmark: BenchmarkRecord = {
    id: run.benchmarkId,
    name: bench?.name ?? run.benchmarkId,
    version: bench?.version ?? '',
    license: '',
    description: '',
    contentHash: bench?.contentHash ?? '',
    source: 'run-export',
    // The manifest's synthetic flag does not travel in a run export: unknown, so no badge.
    synthetic: false,
    caseCount: cases.length,
    createdAt: run.createdAt,
    manifest: { id: run.benchmarkId, name: bench?.name ?? run.benchmarkId, version: bench?.version ?? '' } as BenchmarkRecord['manifest'],
    files: [],
  };
  const scored: ScoredRun = {
    run: { id: run.id, name: run.name, benchmarkId: run.benchmarkId, status: run.status, createdAt: run.createdAt, ...(e.provenance ? { modelNames: modelNamesOf(e.provenance) } : {}) },
    set: { id: setId, runId: run.id, version: 1, createdAt: scoredAt, durationMs: 0, config: scores.config, summary: scores.summary },
    items,
  };
  const c = scores.config;
  return {
    benchmark,
    runs: [{
      id: run.id, name: run.name, status: run.status, createdAt: run.createdAt, answers: e.responses.length, scoreVersion: 1, scoredAt,
      judge: c.judge ?? null, encoder: c.encoder ? encoderProvenance(c.encoder, c.bertscore) : null, newReviews: 0,
      reader: e.provenance ? readerName({ provenance: e.provenance }) : null,
    }],
    scored: [scored],
    cases: new Map(cases.map((k) => [k.id, k])),
    reviews: [...(e.reviews ?? [])],
    answers: items.map(answerTableRow),
    signature: '',
  };
}

/**
 * The report's input from loaded results, as the app's report export builds
 * it. With the run's stored answers, the Safety and Failures sections too
 * (without images: an export carries no image bytes).
 */
export function reportInputOf(data: LoadedResults, options: { readonly metric?: string; readonly generatedAt: Date; readonly appVersion: string; readonly responses?: readonly ResponseRecord[] }): ReportInput {
  const overview = overviewOf(data);
  const metric = options.metric ?? overview.leaderboard.defaultMetric ?? 'pass@1';
  const dimensions = [...HEADLINE_BREAKDOWNS, ...dimensionsFor(data.cases.values()).filter((d) => d in TECHNICAL_TAGS)];
  return {
    overview,
    metric,
    comparisons: compareRows(data.scored, metric, { unit: 'question', cases: data.cases }),
    breakdowns: dimensions.map((d) => breakdown(data.scored, data.cases, d, metric)),
    agreement: agreementReport(data.reviews, data.scored.flatMap((s) => s.items)),
    generatedAt: options.generatedAt,
    appVersion: options.appVersion,
    ...(options.responses ? { safety: safetyOf(data, options.responses) } : {}),
  };
}

function safetyOf(data: LoadedResults, responses: readonly ResponseRecord[]): NonNullable<ReportInput['safety']> {
  const joined = joinAnswers({ items: data.scored.flatMap((s) => s.items), responses: new Map(responses.map((r) => [r.id, r])), cases: data.cases, reviews: data.reviews });
  const config = data.scored[0]?.set.config;
  return { report: safetyReport(joined, { seed: config?.seed ?? 0, resamples: config?.resamples ?? 1000 }), gallery: failureGallery(joined), thumbnails: null };
}
