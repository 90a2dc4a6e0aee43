/**
 * Planning a run: which cases, and the ordered list of generations
 * (case × question × model × variant × sample) with their stable keys.
 *
 * ITEM KEY — `${caseId}#${questionId}|${modelId}|${variant}|s${sample}`.
 * Stored responses are found by this key when a run resumes, and response ids
 * are derived from it; changing the format makes every stored run start over
 * (and then hold two answers per item). Treat it as a stored format.
 *
 * SEEDS — sample `s` (0-based) uses seed `(spec.sampling.seed + s) mod 2³²`,
 * so the samples of one item differ from each other but every run with the
 * same base seed asks the same questions with the same seeds.
 *
 * ORDER — by default model by model: every item of the first model, then of
 * the next, so only one model has to be loaded at a time. Within a model the
 * order is case → question → variant → sample, in benchmark order. With
 * `interleave`, the order is case → question → model → variant → sample:
 * every model answers each case before the next case starts.
 */
import type { BenchCase } from '../bundle/types.ts';
import { InvalidInputError } from '../errors.ts';
import type { RunPlanSummary } from './records.ts';
import type { SamplingParams } from '../engines/engine.ts';
import type { CaseFilters, PlannedItem, RunModel, RunPlan, RunSpec, Variant } from './types.ts';
import { checkVariants } from './variants.ts';

const UINT32 = 0x1_0000_0000;

/** The item key of one generation. Changing it breaks resuming stored runs. */
export function itemKeyOf(parts: {
  caseId: string;
  questionId: string;
  modelId: string;
  variant: Variant;
  sample: number;
}): string {
  return `${parts.caseId}#${parts.questionId}|${parts.modelId}|${parts.variant}|s${parts.sample}`;
}

/**
 * Id of the stored response of an item: one row per (run, item), so saving an
 * item again (a resumed run, a crash between save and bookkeeping) overwrites
 * instead of duplicating.
 */
export function responseIdOf(runId: string, itemKey: string): string {
  return `${runId}/${itemKey}`;
}

/** The seed of sample `sample` (0-based): base seed plus the sample index, modulo 2³². */
export function sampleSeed(baseSeed: number, sample: number): number {
  return (baseSeed + sample) % UINT32;
}

/** The cases a filter selects, in their given order. */
export function selectCases(cases: readonly BenchCase[], filters: CaseFilters = {}): BenchCase[] {
  const allow = (values: readonly string[] | undefined) => (values && values.length > 0 ? new Set(values) : null);
  const splits = allow(filters.splits);
  const families = allow(filters.taskFamilies);
  const groups = allow(filters.diseaseGroups);
  const modalities = allow(filters.modalities);
  const ids = allow(filters.caseIds);
  const pass = (set: Set<string> | null, value: string | undefined) => !set || (value !== undefined && set.has(value));
  return cases.filter(
    (c) =>
      pass(ids, c.id) &&
      pass(splits, c.split) &&
      pass(families, c.taskFamily) &&
      pass(groups, c.diseaseGroup) &&
      pass(modalities, c.modality),
  );
}

/**
 * Plans a run over `cases` (the benchmark's cases, in benchmark order).
 * @throws InvalidInputError for an unusable spec: no models, duplicate model
 *   ids, a bad variant, sample count or sampling value, or two items that
 *   would share a key (duplicate case or question ids).
 */
export function planRun(spec: RunSpec, cases: readonly BenchCase[]): RunPlan {
  const models = checkModels(spec.models);
  const variants = checkVariants(spec.variants ?? ['none']);
  const samples = spec.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new InvalidInputError('The number of samples must be a whole number of at least 1.', { field: 'samples' });
  }
  checkSampling(spec.sampling);
  const interleave = spec.interleave ?? false;

  const selected = selectCases(cases, spec.filters).filter((c) => c.questions.length > 0);
  const known = new Set(cases.map((c) => c.id));
  const missingCaseIds = (spec.filters?.caseIds ?? []).filter((id) => !known.has(id));

  const seeds = Array.from({ length: samples }, (_, s) => sampleSeed(spec.sampling.seed, s));
  const items: PlannedItem[] = [];
  const add = (c: BenchCase, questionId: string, modelId: string) => {
    for (const variant of variants) {
      for (let sample = 0; sample < samples; sample++) {
        const sampling: SamplingParams = { ...spec.sampling, seed: seeds[sample]! };
        const itemKey = itemKeyOf({ caseId: c.id, questionId, modelId, variant, sample });
        items.push({ itemKey, caseId: c.id, questionId, modelId, variant, sample, sampling });
      }
    }
  };
  if (interleave) {
    for (const c of selected) for (const q of c.questions) for (const m of models) add(c, q.id, m.id);
  } else {
    for (const m of models) for (const c of selected) for (const q of c.questions) add(c, q.id, m.id);
  }

  const keys = new Set<string>();
  for (const item of items) {
    if (keys.has(item.itemKey)) {
      throw new InvalidInputError(
        `Two items share the key "${item.itemKey}": case or question ids repeat in this benchmark.`,
        { field: 'cases' },
      );
    }
    keys.add(item.itemKey);
  }

  const questions = selected.reduce((n, c) => n + c.questions.length, 0);
  return {
    benchmarkId: spec.benchmarkId,
    models,
    variants,
    samples,
    sampling: { ...spec.sampling },
    interleave,
    cases: selected,
    items,
    counts: { cases: selected.length, questions, models: models.length, variants: variants.length, samples, items: items.length },
    missingCaseIds,
  };
}

/** The counts stored on the run record. */
export function planSummary(plan: RunPlan): RunPlanSummary {
  const { cases, models, variants, samples, items } = plan.counts;
  return { cases, models, variants, samples, items };
}

function checkModels(models: readonly RunModel[]): RunModel[] {
  if (models.length === 0) throw new InvalidInputError('Choose at least one model.', { field: 'models' });
  const seen = new Set<string>();
  for (const m of models) {
    if (!m.id || m.id.includes('|')) {
      throw new InvalidInputError(`Model id "${m.id}" is empty or contains "|".`, { field: 'models' });
    }
    if (seen.has(m.id)) throw new InvalidInputError(`Model "${m.id}" is listed twice.`, { field: 'models' });
    seen.add(m.id);
  }
  return models.map((m) => ({ ...m }));
}

function checkSampling(s: SamplingParams): void {
  const bad = (field: string, rule: string) => new InvalidInputError(`Sampling ${field} must be ${rule}.`, { field: `sampling.${field}` });
  if (!Number.isFinite(s.temperature) || s.temperature < 0) throw bad('temperature', 'a number ≥ 0');
  if (!Number.isFinite(s.topP) || s.topP <= 0 || s.topP > 1) throw bad('topP', 'a number in (0, 1]');
  if (!Number.isInteger(s.seed) || s.seed < 0 || s.seed >= UINT32) throw bad('seed', 'a whole number from 0 to 4294967295');
  if (!Number.isInteger(s.maxTokens) || s.maxTokens < 1) throw bad('maxTokens', 'a whole number ≥ 1');
}
