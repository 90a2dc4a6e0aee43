/**
 * Agreement between clinicians, and between the machine and clinicians, on
 * the answers they reviewed (docs/protocols.md#agreement): Cohen's κ per pair of reviewers
 * (unweighted on verdicts, quadratic on rationale ratings), Krippendorff's α
 * across all reviewers (nominal on verdicts, interval on ratings), κ between
 * the machine's verdict (rule or judge, before any override) and each
 * reviewer, and Pearson r between rationale ratings and the machine's
 * similarity score. Only `correct` / `incorrect` verdicts count as verdicts.
 */
import type { ReviewRecord } from '../model/review.ts';
import type { ScoreRecord } from '../scoring/run/records.ts';
import { isReviewVerdict } from '../scoring/run/types.ts';
import { isContinuousMetric } from '../scoring/run/summary.ts';
import { pearson } from '../scoring/stats/correlation.ts';
import { cohenKappa } from '../scoring/stats/kappa.ts';
import { krippendorffAlpha } from '../scoring/stats/krippendorff.ts';

interface PairAgreement {
  readonly a: string;
  readonly b: string;
  /** Answers both rated. */
  readonly n: number;
  readonly kappa: number;
  /** Share of those answers with the same verdict. */
  readonly agreement: number;
}

export interface AgreementReport {
  readonly reviewers: readonly string[];
  readonly reviewedAnswers: number;
  readonly reviews: number;
  /** Reviews whose verdict differs from the machine's (overrides). */
  readonly overrides: number;
  readonly verdicts: {
    readonly pairs: readonly PairAgreement[];
    /** Krippendorff's α (nominal) over answers with ≥ 2 verdicts; NaN when none. */
    readonly alpha: number;
    readonly alphaUnits: number;
  };
  readonly ratings: {
    readonly pairs: readonly PairAgreement[];
    readonly alpha: number;
    readonly alphaUnits: number;
  };
  /** The machine (rule or judge) against each reviewer. */
  readonly machine: readonly (PairAgreement & { readonly judgeOnly: PairAgreement | null })[];
  /** Pearson r between reviewers' rationale ratings and the machine's similarity score (BERTScore F, else ROUGE-L). */
  readonly ratingVsSimilarity: { readonly n: number; readonly r: number; readonly metric: string | null };
}


/** The machine's verdict on an item before any override: the last rule/judge verdict on its primary metric, else the metric itself. */
export function machineVerdict(item: ScoreRecord): { correct: boolean; source: 'rule' | 'judge' } | null {
  // Rubric points and similarity are not right-or-wrong: the machine gives no verdict on them.
  if (!item.primary || isContinuousMetric(item.primary)) return null;
  for (let i = item.verdicts.length - 1; i >= 0; i--) {
    const v = item.verdicts[i]!;
    if (v.for === item.primary && v.source !== 'reviewer' && v.equivalent !== null) return { correct: v.equivalent, source: v.source };
  }
  const m = item.metrics[item.primary];
  if (!m || m.value === null || m.source === 'reviewer' || m.source === 'encoder') return null;
  if (m.value !== 0 && m.value !== 1) return null;
  return { correct: m.value === 1, source: m.source === 'judge' ? 'judge' : 'rule' };
}

function pairs<T extends string | number>(byAnswer: Map<string, Map<string, T>>, reviewers: readonly string[], weights: 'none' | 'quadratic'): PairAgreement[] {
  const out: PairAgreement[] = [];
  for (let i = 0; i < reviewers.length; i++) {
    for (let j = i + 1; j < reviewers.length; j++) {
      const a: T[] = [];
      const b: T[] = [];
      for (const m of byAnswer.values()) {
        const x = m.get(reviewers[i]!);
        const y = m.get(reviewers[j]!);
        if (x !== undefined && y !== undefined) {
          a.push(x);
          b.push(y);
        }
      }
      if (a.length === 0) continue;
      out.push({ a: reviewers[i]!, b: reviewers[j]!, n: a.length, kappa: cohenKappa(a, b, { weights }), agreement: a.filter((x, k) => x === b[k]).length / a.length });
    }
  }
  return out;
}

function alpha<T extends string | number>(byAnswer: Map<string, Map<string, T>>, level: 'nominal' | 'interval'): { alpha: number; units: number } {
  const units = [...byAnswer.values()].map((m) => [...m.values()]).filter((u) => u.length >= 2);
  return { alpha: units.length ? krippendorffAlpha(units, level) : NaN, units: units.length };
}

export function agreementReport(reviews: readonly ReviewRecord[], items: readonly ScoreRecord[]): AgreementReport {
  const verdicts = new Map<string, Map<string, string>>();
  const ratings = new Map<string, Map<string, number>>();
  const reviewers: string[] = [];
  for (const r of reviews) {
    if (!reviewers.includes(r.reviewerId)) reviewers.push(r.reviewerId);
    if (isReviewVerdict(r.verdict)) {
      const m = verdicts.get(r.responseId) ?? new Map<string, string>();
      m.set(r.reviewerId, r.verdict);
      verdicts.set(r.responseId, m);
    }
    if (r.rationaleRating !== null) {
      const m = ratings.get(r.responseId) ?? new Map<string, number>();
      m.set(r.reviewerId, r.rationaleRating);
      ratings.set(r.responseId, m);
    }
  }
  reviewers.sort();
  const byResponse = new Map(items.map((it) => [it.responseId, it]));

  let overrides = 0;
  const machine = reviewers.map((reviewer) => {
    const m: string[] = [];
    const h: string[] = [];
    const jm: string[] = [];
    const jh: string[] = [];
    for (const [responseId, byReviewer] of verdicts) {
      const human = byReviewer.get(reviewer);
      const item = byResponse.get(responseId);
      const mv = item ? machineVerdict(item) : null;
      if (human === undefined || !mv) continue;
      const machineLabel = mv.correct ? 'correct' : 'incorrect';
      m.push(machineLabel);
      h.push(human);
      if (human !== machineLabel) overrides++;
      if (mv.source === 'judge') {
        jm.push(machineLabel);
        jh.push(human);
      }
    }
    const agree = (a: string[], b: string[]) => a.filter((x, k) => x === b[k]).length / a.length;
    return {
      a: 'machine', b: reviewer, n: m.length, kappa: m.length ? cohenKappa(m, h) : NaN, agreement: m.length ? agree(m, h) : NaN,
      judgeOnly: jm.length ? { a: 'judge', b: reviewer, n: jm.length, kappa: cohenKappa(jm, jh), agreement: agree(jm, jh) } : null,
    };
  });

  const simX: number[] = [];
  const simY: number[] = [];
  let simMetric: string | null = null;
  for (const [responseId, byReviewer] of ratings) {
    const item = byResponse.get(responseId);
    const key = item?.metrics['bertscore.f'] ? 'bertscore.f' : item?.metrics.rougeL ? 'rougeL' : null;
    const v = key ? item!.metrics[key]!.value : null;
    if (v === null || !key) continue;
    simMetric ??= key;
    for (const rating of byReviewer.values()) {
      simX.push(rating);
      simY.push(v);
    }
  }
  const va = alpha(verdicts, 'nominal');
  const ra = alpha(ratings, 'interval');
  return {
    reviewers,
    reviewedAnswers: new Set(reviews.map((r) => r.responseId)).size,
    reviews: reviews.length,
    overrides,
    verdicts: { pairs: pairs(verdicts, reviewers, 'none'), alpha: va.alpha, alphaUnits: va.units },
    ratings: { pairs: pairs(ratings, reviewers, 'quadratic'), alpha: ra.alpha, alphaUnits: ra.units },
    machine,
    ratingVsSimilarity: { n: simX.length, r: simX.length >= 3 ? pearson(simX, simY).r : NaN, metric: simMetric },
  };
}
