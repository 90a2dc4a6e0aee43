/** A metric by case attribute or variant (and by technical tag where cases carry them), each cell with its interval. */
import type { BenchCase } from '../bundle/types.ts';
import { answerClusters, isContinuousMetric } from '../scoring/run/summary.ts';
import type { CaseLookup } from '../scoring/run/patients.ts';
import { armKey, type QuestionIdentity } from '../scoring/run/types.ts';
import { bootstrapClusterMeanCi, bootstrapMeanCi } from '../scoring/stats/bootstrap.ts';
import { wilsonInterval } from '../scoring/stats/wilson.ts';
import type { IntervalUnit } from './format.ts';
import { rowModelName } from './model-names.ts';
import { TECHNICAL_LABELS, TECHNICAL_TAGS, technicalDimensionsOf, technicalGroup, technicalRank, type TechnicalDimension } from './technical-tags.ts';

import { rowId, type ScoredItems, type BreakdownCase } from './leaderboard.ts';
import { type ScoredItem } from '../scoring/run/records.ts';

/** Dimensions every benchmark has; the technical ones (technical-tags.ts) come after them when cases carry the tags. */
const CASE_DIMENSIONS = ['split', 'taskFamily', 'subtask', 'diseaseGroup', 'modality', 'sequence', 'plane', 'variant', 'protocol'] as const;
export type Dimension = (typeof CASE_DIMENSIONS)[number] | TechnicalDimension;

export const DIMENSION_LABELS: Readonly<Record<Dimension, string>> = {
  split: 'Split / level', taskFamily: 'Task family', subtask: "Sub-task (the benchmark's own)", diseaseGroup: 'Disease group', modality: 'Modality', sequence: 'Sequence', plane: 'Plane', variant: 'Variant', protocol: 'Protocol',
  ...TECHNICAL_LABELS,
};

const isTechnical = (d: Dimension): d is TechnicalDimension => d in TECHNICAL_TAGS;

/**
 * The dimensions worth offering for these cases: every case dimension (the
 * benchmark's own sub-task only where some case has one), and each technical
 * one some case has a tag for.
 */
export function dimensionsFor(cases: Iterable<Pick<BenchCase, 'meta' | 'subtask'>>): Dimension[] {
  const all = [...cases];
  const subtasks = all.some((c) => c.subtask !== undefined);
  return [...CASE_DIMENSIONS.filter((d) => d !== 'subtask' || subtasks), ...technicalDimensionsOf(all)];
}

interface Cell {
  readonly value: number;
  readonly lower: number;
  readonly upper: number;
  /** Answers; with several samples per question (question unit), questions; by patient, patients. */
  readonly n: number;
  /** With several samples per question, or by patient: the sampled answers (n counts questions or patients). */
  readonly samples?: number;
  /** Set when the group's cases share a patient key: the interval resamples patients and n counts them. */
  readonly by?: 'patient';
  /** By patient: the cases behind the patients. */
  readonly cases?: number;
}

export interface Breakdown {
  readonly dimension: Dimension;
  readonly metric: string;
  /** Series: leaderboard rows, or models (run + model) for the variant dimension. */
  readonly series: readonly { readonly id: string; readonly label: string }[];
  readonly groups: readonly string[];
  /** cells[group][series]; null = no item of that series in that group. */
  readonly cells: readonly (readonly (Cell | null)[])[];
}

function dimensionValue(dim: Dimension, it: ScoredItem, kase: BreakdownCase | undefined): string {
  const first = kase?.images[0];
  switch (dim) {
    case 'variant': return it.variant;
    case 'protocol': return it.protocolId;
    case 'split': return kase?.split ?? '(none)';
    case 'taskFamily': return kase?.taskFamily ?? '(unknown)';
    case 'diseaseGroup': return kase?.diseaseGroup ?? '(none)';
    case 'subtask': return kase?.subtask ?? '(none)';
    case 'modality': return kase?.modality ?? '(none)';
    case 'sequence': return kase?.sequences?.[0] ?? first?.sequence ?? '(none)';
    case 'plane': return String(first?.plane ?? '(none)');
    default: return technicalGroup(dim, kase?.meta);
  }
}

/**
 * A group's mean and interval; as the arm summaries do, several samples of a
 * question resample together (`unit: 'question'`), and so do the cases of a
 * patient when the group's cases share a patient key.
 */
function cellOf(values: readonly number[], answers: readonly QuestionIdentity[], cases: CaseLookup, continuous: boolean, unit: IntervalUnit, seed = 0, resamples = 1000): Cell | null {
  if (values.length === 0) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  const clusters = unit === 'question' ? answerClusters(answers, cases) : null;
  if (clusters) {
    const b = bootstrapClusterMeanCi(values, clusters.ids, { seed, resamples });
    const patients = clusters.by === 'patient' ? { by: 'patient' as const, cases: clusters.cases } : {};
    return { value: sum / values.length, lower: b.lower, upper: b.upper, n: clusters.n, samples: values.length, ...patients };
  }
  if (continuous) {
    const b = bootstrapMeanCi(values, { seed, resamples });
    return { value: sum / values.length, lower: b.lower, upper: b.upper, n: values.length };
  }
  const w = wilsonInterval(sum, values.length);
  return { value: sum / values.length, lower: w.lower, upper: w.upper, n: values.length };
}

/** Mean and 95 % interval of `metric` per group of `dimension`, for every row (or model, for variants). */
export function breakdown(runs: readonly ScoredItems[], cases: ReadonlyMap<string, BreakdownCase>, dimension: Dimension, metric: string, options: { seed?: number; resamples?: number; unit?: IntervalUnit } = {}): Breakdown {
  const continuous = isContinuousMetric(metric);
  const answers = new Map<string, ScoredItem[]>();
  const seriesIds: string[] = [];
  const seriesLabels = new Map<string, string>();
  const groups: string[] = [];
  const values = new Map<string, number[]>();
  for (const { run, items } of runs) {
    for (const it of items) {
      const v = it.metrics[metric]?.value;
      if (v === null || v === undefined) continue;
      const arm = armKey(it.modelId, it.variant);
      const sid = dimension === 'variant' ? `${run.id}|${it.modelId}` : rowId(run.id, { key: arm });
      if (!seriesLabels.has(sid)) {
        seriesIds.push(sid);
        const modelName = run.modelNames?.[it.modelId];
        // What people read: the model's name (with its variant in words), never the stored key.
        seriesLabels.set(sid, dimension === 'variant' ? rowModelName({ modelId: it.modelId, variant: 'none', ...(modelName ? { modelName } : {}) }) : rowModelName({ modelId: it.modelId, variant: it.variant, ...(modelName ? { modelName } : {}) }));
      }
      const g = dimensionValue(dimension, it, cases.get(it.caseId));
      if (!groups.includes(g)) groups.push(g);
      const key = `${g}\u0000${sid}`;
      const list = values.get(key);
      if (list) list.push(v);
      else values.set(key, [v]);
      const a = answers.get(key);
      if (a) a.push(it);
      else answers.set(key, [it]);
    }
  }
  // Variants in a natural order (none, text-only, then degradations by kind and severity); technical groups by
  // their own order (tesla, thickness bins, untagged last); others alphabetically.
  const rank = (g: string) => (dimension === 'variant' ? variantRank(g) : isTechnical(dimension) ? technicalRank(dimension, g) : 0);
  groups.sort((a, b) => rank(a) - rank(b) || (dimension === 'variant' ? a.localeCompare(b) : a.localeCompare(b, 'en', { numeric: true })));
  const runNames = new Map(runs.map((r) => [r.run.id, r.run.name]));
  const dupLabels = new Map<string, number>();
  for (const id of seriesIds) dupLabels.set(seriesLabels.get(id)!, (dupLabels.get(seriesLabels.get(id)!) ?? 0) + 1);
  return {
    dimension,
    metric,
    series: seriesIds.map((id) => {
      const label = seriesLabels.get(id)!;
      return { id, label: (dupLabels.get(label) ?? 0) > 1 ? `${label} · ${runNames.get(id.split('|')[0]!) ?? ''}` : label };
    }),
    groups,
    cells: groups.map((g) => seriesIds.map((sid) => {
      const key = `${g}\u0000${sid}`;
      return cellOf(values.get(key) ?? [], answers.get(key) ?? [], cases, continuous, options.unit ?? 'question', options.seed ?? 0, options.resamples ?? 1000);
    })),
  };
}

function variantRank(v: string): number {
  if (v === 'none') return 0;
  if (v === 'text-only') return 1;
  return 2;
}

