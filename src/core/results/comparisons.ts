/**
 * Model-vs-model tests on the same items: paired differences with their
 * intervals and McNemar's test, per question or per sample, clustered by
 * patient where cases name one.
 */
import { answerClusters, isContinuousMetric, questionKey } from '../scoring/run/summary.ts';
import type { CaseLookup } from '../scoring/run/patients.ts';
import { armKey, type QuestionIdentity } from '../scoring/run/types.ts';
import type { Interval } from '../model/geometry.ts';
import { pairedBootstrapMean } from '../scoring/stats/bootstrap.ts';
import { mcnemar } from '../scoring/stats/mcnemar.ts';
import type { IntervalUnit } from './format.ts';

import { rowId, type ScoredItems } from './leaderboard.ts';
import { type ScoredItem } from '../scoring/run/records.ts';

/**
 * How a question's samples are summarised before a paired test when some
 * question has several: a 0/1 metric by the majority (right in more than half
 * of its scored samples; a tie is not a majority), any other metric by the
 * mean of its samples. With one sample per question both are that sample.
 */
export type PerQuestionSummary = 'majority-correct' | 'mean-of-samples';

export const PER_QUESTION_SUMMARY_LABELS: Readonly<Record<PerQuestionSummary, string>> = {
  'majority-correct': 'a question counts as right when more than half of its samples are right',
  'mean-of-samples': 'a question scores the mean of its samples',
};

/** The same summaries one level up, when tests pair patients: over every answer of the patient's shared questions. */
export const PER_PATIENT_SUMMARY_LABELS: Readonly<Record<PerQuestionSummary, string>> = {
  'majority-correct': 'a patient counts as right when more than half of their answers are right',
  'mean-of-samples': 'a patient scores the mean of their answers',
};

/** How a comparison summarised its units before testing, in words; null when each unit was one answer. */
export function comparisonSummary(c: Pick<Comparison, 'perQuestion' | 'perPatient'>): string | null {
  if (c.perPatient) return PER_PATIENT_SUMMARY_LABELS[c.perPatient];
  return c.perQuestion ? PER_QUESTION_SUMMARY_LABELS[c.perQuestion] : null;
}

export interface Comparison {
  readonly a: string;
  readonly b: string;
  readonly metric: string;
  /** Units both rows have a value for: questions (patients when `by` is `patient`), or samples in the per-sample view. */
  readonly n: number;
  readonly unit: IntervalUnit;
  /** Set when the shared questions' cases share a patient key: the test pairs patients (n counts them). */
  readonly by?: 'patient';
  /** Paired by patient: the shared questions and cases behind the patients. */
  readonly questions?: number;
  readonly cases?: number;
  /** Set when some paired question had several samples: how they were summarised per question. */
  readonly perQuestion?: PerQuestionSummary;
  /** Paired by patient: how each patient's answers were summarised (over every answer of its shared questions). */
  readonly perPatient?: PerQuestionSummary;
  /** mean(A) − mean(B) of what was tested on those units (per-question summaries, or samples). */
  readonly difference: number;
  readonly pValue: number;
  readonly method: 'mcnemar-exact' | 'mcnemar-chi2' | 'paired-bootstrap';
  /** 95 % interval of the difference (paired bootstrap), when computed. */
  readonly ci?: Interval;
}

/** The key two models share in one unit: the question (any sample), or the question and sample; any variant pairs with any. */
function pairKey(it: Pick<ScoredItem, 'caseId' | 'questionId' | 'sample'>, unit: IntervalUnit): string {
  return unit === 'question' ? questionKey(it) : `${questionKey(it)}|s${it.sample}`;
}

/** Per row, the values of each unit (a question's samples, or one sample), in first-seen order. */
function valuesByRow(runs: readonly ScoredItems[], metric: string, unit: IntervalUnit): Map<string, Map<string, number[]>> {
  const out = new Map<string, Map<string, number[]>>();
  for (const { run, items } of runs) {
    for (const it of items) {
      const v = it.metrics[metric]?.value;
      if (v === null || v === undefined) continue;
      const key = rowId(run.id, { key: armKey(it.modelId, it.variant) });
      let m = out.get(key);
      if (!m) out.set(key, (m = new Map()));
      const k = pairKey(it, unit);
      const list = m.get(k);
      if (list && unit === 'question') list.push(v);
      else m.set(k, [v]);
    }
  }
  return out;
}

/**
 * One question's samples → one value for the paired test. McNemar needs one
 * right/wrong per question; the majority uses every sample (unlike the first
 * sample alone, which throws the others away and depends on which sample
 * failed), does not depend on sample order, and works when the two models
 * have different numbers of samples. A tie (half right) is not a majority,
 * so a question is right only when the model is right more often than not.
 */
function perQuestionValue(values: readonly number[], continuous: boolean): number {
  if (values.length === 1) return values[0]!;
  const sum = values.reduce((s, x) => s + x, 0);
  if (continuous) return sum / values.length;
  return 2 * sum > values.length ? 1 : 0;
}

/**
 * The shared questions of two rows grouped by patient, when their cases share
 * a patient key: each patient's answers (every sample of every shared
 * question) pooled per row, so both rows are summarised on the same questions.
 */
function pairPatients(A: Map<string, number[]>, B: Map<string, number[]>, questionOf: ReadonlyMap<string, QuestionIdentity>, cases: CaseLookup): { a: number[][]; b: number[][]; questions: number; cases: number } | null {
  const shared = [...A.keys()].filter((k) => B.has(k));
  // Each shared key is one question, so its answers cluster only by patient.
  const clusters = answerClusters(shared.map((k) => questionOf.get(k)!), cases);
  if (clusters?.by !== 'patient') return null;
  const byPatient = new Map<string, { a: number[]; b: number[] }>();
  shared.forEach((k, i) => {
    const p = clusters.ids[i]!;
    let g = byPatient.get(p);
    if (!g) byPatient.set(p, (g = { a: [], b: [] }));
    g.a.push(...A.get(k)!);
    g.b.push(...B.get(k)!);
  });
  const groups = [...byPatient.values()];
  return { a: groups.map((g) => g.a), b: groups.map((g) => g.b), questions: shared.length, cases: clusters.cases };
}

/**
 * Every pair of rows on one metric, paired on the units both answered:
 * McNemar (exact below 25 discordant pairs) for 0/1 metrics, a seeded paired
 * bootstrap of the mean difference otherwise. By default the unit is the
 * question: a question with several samples is one unit, summarised as
 * {@link perQuestionValue} says (the comparison states it in `perQuestion`).
 * `unit: 'sample'` is the per-sample view: sample s of A paired with sample s
 * of B, each pair an independent item. With one sample per question both
 * units give the same figures. With `cases`, when the shared questions'
 * cases share a patient key (patients.ts), the unit is the patient: each
 * patient's answers summarised as one value the same way (`perPatient`).
 */
export function compareRows(runs: readonly ScoredItems[], metric: string, options: { seed?: number; resamples?: number; unit?: IntervalUnit; cases?: CaseLookup } = {}): Comparison[] {
  const unit = options.unit ?? 'question';
  const byRow = valuesByRow(runs, metric, unit);
  const questionOf = unit === 'question' && options.cases ? new Map(runs.flatMap((r) => r.items.map((it) => [questionKey(it), it] as const))) : null;
  const ids = [...byRow.keys()];
  const out: Comparison[] = [];
  const continuous = isContinuousMetric(metric);
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const A = byRow.get(ids[i]!)!;
      const B = byRow.get(ids[j]!)!;
      const a: number[] = [];
      const b: number[] = [];
      let several = false;
      const patients = questionOf && options.cases ? pairPatients(A, B, questionOf, options.cases) : null;
      const units = patients ? patients.a.map((v, k) => [v, patients.b[k]!] as const) : [...A].flatMap(([k, v]) => (B.has(k) ? [[v, B.get(k)!] as const] : []));
      for (const [v, w] of units) {
        a.push(perQuestionValue(v, continuous));
        b.push(perQuestionValue(w, continuous));
        if (v.length > 1 || w.length > 1) several = true;
      }
      if (a.length === 0) continue;
      const difference = a.reduce((s, x) => s + x, 0) / a.length - b.reduce((s, x) => s + x, 0) / b.length;
      const summary = continuous ? ('mean-of-samples' as const) : ('majority-correct' as const);
      const stated = patients
        ? { unit, by: 'patient' as const, questions: patients.questions, cases: patients.cases, ...(several ? { perPatient: summary } : {}) }
        : { unit, ...(several ? { perQuestion: summary } : {}) };
      if (continuous) {
        const r = pairedBootstrapMean(a, b, { seed: options.seed ?? 0, resamples: options.resamples ?? 1000 });
        out.push({ a: ids[i]!, b: ids[j]!, metric, n: a.length, ...stated, difference, pValue: r.pValue, method: 'paired-bootstrap', ci: { lower: r.lower, upper: r.upper } });
      } else {
        const r = mcnemar(a.map((x) => x === 1), b.map((x) => x === 1));
        out.push({ a: ids[i]!, b: ids[j]!, metric, n: a.length, ...stated, difference, pValue: r.pValue, method: r.method === 'exact-binomial' ? 'mcnemar-exact' : 'mcnemar-chi2' });
      }
    }
  }
  return out;
}

/** The comparison of two rows, whichever order it was computed in (difference as a − b). */
export function comparisonOf(comparisons: readonly Comparison[], a: string, b: string): Comparison | undefined {
  const direct = comparisons.find((c) => c.a === a && c.b === b);
  if (direct) return direct;
  const flipped = comparisons.find((c) => c.a === b && c.b === a);
  return flipped && { ...flipped, a, b, difference: -flipped.difference, ...(flipped.ci ? { ci: { lower: -flipped.ci.upper, upper: -flipped.ci.lower } } : {}) };
}

