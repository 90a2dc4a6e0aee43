/**
 * Readers vs models, the way Neural-MedBench sets models beside medical
 * students and neurologists, but paired: each reader, and the readers'
 * consensus, against each model arm on the questions both answered, with the
 * same statistics as the leaderboard's model-vs-model tests (McNemar, exact
 * below 25 discordant pairs, for 0/1 metrics; a seeded paired bootstrap for
 * the others and for every difference's 95 % interval), and Cohen's κ
 * between readers on their answers.
 */
import type { ScoredItem } from '../scoring/run/records.ts';
import { isContinuousMetric, questionKey } from '../scoring/run/summary.ts';
import { pairedBootstrapMean } from '../scoring/stats/bootstrap.ts';
import { cohenKappa } from '../scoring/stats/kappa.ts';
import { mcnemar } from '../scoring/stats/mcnemar.ts';

/** One reader's scored answers and what they answered (question key → answer key, answer.ts `answerKey`). */
export interface ReaderInput {
  readonly id: string;
  readonly label: string;
  readonly items: readonly ScoredItem[];
  readonly answers: ReadonlyMap<string, string>;
}

/** One model arm (a leaderboard row) and its scored answers. */
export interface ModelArmInput {
  readonly id: string;
  readonly label: string;
  readonly items: readonly ScoredItem[];
}

export const CONSENSUS_ID = 'consensus';

/** The consensus rule, in words, for the page and the report. */
export const CONSENSUS_RULE =
  'Consensus: on each question at least two readers answered, the answer given by more readers than any other; it is scored as those readers were. A tie between answers is no consensus: the question is left out of the consensus comparisons and counted as a tie.';

export interface Consensus {
  readonly items: readonly ScoredItem[];
  /** Questions with a consensus answer. */
  readonly questions: number;
  /** Questions two or more readers answered with no majority answer. */
  readonly ties: number;
}

export interface ReaderModelTest {
  /** A reader's run id, or {@link CONSENSUS_ID}. */
  readonly reader: string;
  readonly readerLabel: string;
  readonly model: string;
  readonly modelLabel: string;
  readonly metric: string;
  /** Questions both answered (with a value of the metric). */
  readonly n: number;
  readonly readerMean: number;
  readonly modelMean: number;
  /** readerMean − modelMean. */
  readonly difference: number;
  /** 95 % interval of the difference (seeded paired bootstrap). */
  readonly ci: { readonly lower: number; readonly upper: number };
  /** 0/1 metrics: questions only the reader got right, only the model got right. */
  readonly readerOnly?: number;
  readonly modelOnly?: number;
  readonly pValue: number;
  readonly method: 'mcnemar-exact' | 'mcnemar-chi2' | 'paired-bootstrap';
}

export interface ReaderAgreement {
  readonly a: string;
  readonly b: string;
  /** Questions both readers answered. */
  readonly n: number;
  /** Share of those with the same answer. */
  readonly observed: number;
  /** Cohen's κ (unweighted) on the answers; NaN when it is undefined (one answer only, by both). */
  readonly kappa: number;
}

export interface ReaderStudyResult {
  readonly metric: string;
  readonly readers: readonly { readonly id: string; readonly label: string; readonly answered: number; readonly mean: number | null }[];
  readonly consensus: Consensus & { readonly rule: string };
  readonly tests: readonly ReaderModelTest[];
  readonly agreement: readonly ReaderAgreement[];
}

/** Per question, one value: a question with several samples (a model's) counts as the leaderboard's tests count it. */
function perQuestion(items: readonly ScoredItem[], metric: string): Map<string, number> {
  const lists = new Map<string, number[]>();
  for (const it of items) {
    const v = it.metrics[metric]?.value;
    if (v === null || v === undefined) continue;
    const k = questionKey(it);
    const l = lists.get(k);
    if (l) l.push(v);
    else lists.set(k, [v]);
  }
  const continuous = isContinuousMetric(metric);
  const out = new Map<string, number>();
  for (const [k, vs] of lists) {
    const sum = vs.reduce((s, x) => s + x, 0);
    // As compareRows: the mean of samples, or right when right in more than half of them.
    out.set(k, vs.length === 1 ? vs[0]! : continuous ? sum / vs.length : 2 * sum > vs.length ? 1 : 0);
  }
  return out;
}

/** The readers' consensus as a scored arm of its own ({@link CONSENSUS_RULE}). */
export function readerConsensus(readers: readonly ReaderInput[], metric: string): Consensus {
  const votes = new Map<string, { answer: string; item: ScoredItem }[]>();
  for (const r of readers) {
    for (const it of r.items) {
      const answer = r.answers.get(questionKey(it));
      if (answer === undefined || it.metrics[metric]?.value == null) continue;
      const k = questionKey(it);
      const l = votes.get(k);
      if (l) l.push({ answer, item: it });
      else votes.set(k, [{ answer, item: it }]);
    }
  }
  const items: ScoredItem[] = [];
  let ties = 0;
  for (const list of votes.values()) {
    if (list.length < 2) continue;
    const counts = new Map<string, number>();
    for (const v of list) counts.set(v.answer, (counts.get(v.answer) ?? 0) + 1);
    const best = Math.max(...counts.values());
    const leaders = [...counts].filter(([, n]) => n === best);
    if (leaders.length > 1) {
      ties++;
      continue;
    }
    const winner = list.find((v) => v.answer === leaders[0]![0])!.item;
    items.push({ ...winner, modelId: CONSENSUS_ID, variant: 'none', sample: 0 });
  }
  return { items, questions: items.length, ties };
}

function pairTest(reader: { id: string; label: string; values: Map<string, number> }, model: { id: string; label: string; values: Map<string, number> }, metric: string, seed: number, resamples: number): ReaderModelTest | null {
  const a: number[] = [];
  const b: number[] = [];
  for (const [k, v] of reader.values) {
    const w = model.values.get(k);
    if (w === undefined) continue;
    a.push(v);
    b.push(w);
  }
  if (a.length === 0) return null;
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const boot = pairedBootstrapMean(a, b, { seed, resamples });
  const base = {
    reader: reader.id, readerLabel: reader.label, model: model.id, modelLabel: model.label, metric, n: a.length,
    readerMean: mean(a), modelMean: mean(b), difference: mean(a) - mean(b), ci: { lower: boot.lower, upper: boot.upper },
  };
  if (isContinuousMetric(metric)) return { ...base, pValue: boot.pValue, method: 'paired-bootstrap' };
  const m = mcnemar(a.map((x) => x === 1), b.map((x) => x === 1));
  return { ...base, readerOnly: m.b, modelOnly: m.c, pValue: m.pValue, method: m.method === 'exact-binomial' ? 'mcnemar-exact' : 'mcnemar-chi2' };
}

/** Each pair of readers on the questions both answered: observed agreement and Cohen's κ of their answers. */
export function readerAgreement(readers: readonly ReaderInput[]): ReaderAgreement[] {
  const out: ReaderAgreement[] = [];
  for (let i = 0; i < readers.length; i++) {
    for (let j = i + 1; j < readers.length; j++) {
      const x: string[] = [];
      const y: string[] = [];
      for (const [k, v] of readers[i]!.answers) {
        const w = readers[j]!.answers.get(k);
        if (w === undefined) continue;
        x.push(v);
        y.push(w);
      }
      if (x.length === 0) continue;
      out.push({ a: readers[i]!.label, b: readers[j]!.label, n: x.length, observed: x.filter((v, k) => v === y[k]).length / x.length, kappa: cohenKappa(x, y) });
    }
  }
  return out;
}

/** Every reader and the consensus against every model arm on `metric`. */
export function readerStudy(readers: readonly ReaderInput[], models: readonly ModelArmInput[], metric: string, options: { seed?: number; resamples?: number } = {}): ReaderStudyResult {
  const seed = options.seed ?? 0;
  const resamples = options.resamples ?? 1000;
  const consensus = readerConsensus(readers, metric);
  const sides = readers.map((r) => ({ id: r.id, label: r.label, values: perQuestion(r.items, metric) }));
  if (readers.length >= 2) sides.push({ id: CONSENSUS_ID, label: 'Readers’ consensus', values: perQuestion(consensus.items, metric) });
  const arms = models.map((m) => ({ id: m.id, label: m.label, values: perQuestion(m.items, metric) }));
  const tests = sides.flatMap((s) => arms.flatMap((m) => pairTest(s, m, metric, seed, resamples) ?? []));
  return {
    metric,
    readers: sides.slice(0, readers.length).map((s) => {
      const vs = [...s.values.values()];
      return { id: s.id, label: s.label, answered: vs.length, mean: vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null };
    }),
    consensus: { ...consensus, rule: CONSENSUS_RULE },
    tests,
    agreement: readerAgreement(readers),
  };
}
