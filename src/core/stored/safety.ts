/**
 * The safety view and failure gallery of a benchmark's current scores, read
 * from its score rows, the stored answers they score (the class an answer
 * named is not kept in a score row) and the cases. Computed when the page's
 * Safety section or the report asks, never when the page opens.
 */
import type { Repositories } from '../db/index.ts';
import type { ResponseRecord } from '../model/answer.ts';
import { failureGallery, type GalleryGroup } from '../results/gallery.ts';
import type { LoadedResults } from '../results/overview.ts';
import { joinAnswers } from '../results/safety-input.ts';
import { safetyReport, type SafetyReport } from '../results/safety.ts';

export interface SafetyView {
  readonly report: SafetyReport;
  readonly gallery: readonly GalleryGroup[];
  /** Bootstrap seed of the intervals: the first scored run's scoring seed. */
  readonly seed: number;
}

/** The stored answers the scored runs' score rows point at, by response id: the one read the safety view needs. */
export async function readScoredAnswers(repos: Repositories, data: Pick<LoadedResults, 'scored'>): Promise<Map<string, ResponseRecord>> {
  const responses = new Map<string, ResponseRecord>();
  for (const s of data.scored) for (const r of await repos.responses.listByRun(s.run.id)) responses.set(r.id, r as ResponseRecord);
  return responses;
}

/** The safety view and failure gallery of loaded results and their answers ({@link readScoredAnswers}). */
export function safetyView(data: Pick<LoadedResults, 'scored' | 'cases' | 'reviews'>, responses: ReadonlyMap<string, ResponseRecord>): SafetyView {
  const seed = data.scored[0]?.set.config.seed ?? 0;
  const joined = joinAnswers({ items: data.scored.flatMap((s) => s.items), responses, cases: data.cases, reviews: data.reviews });
  return { report: safetyReport(joined, { seed, resamples: data.scored[0]?.set.config.resamples ?? 1000 }), gallery: failureGallery(joined), seed };
}
