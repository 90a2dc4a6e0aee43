/**
 * What importing a run export would do, checked before anything is stored,
 * by both the preview and the import (so the preview never promises an import
 * that is then refused): the benchmark is here with the same content, no item
 * is answered twice, each answer's item key agrees with its fields, and each
 * answer is for an item of the run's plan on this benchmark. Answers for
 * items the plan does not have are listed, not stored: the import refuses
 * them unless the user asks to leave them out.
 */
import type { Repositories } from '../db/index.ts';
import type { BenchmarkRecord } from '../bundle/records.ts';
import type { RunRecord } from '../runner/records.ts';
import { InvalidInputError } from '../errors.ts';
import { itemKeyOf } from '../runner/plan.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { Variant } from '../runner/types.ts';
import { runRecordOf, type RunExport } from '../scoring/io/run-export.ts';

/** An answer for an item the run's plan on this benchmark does not have. */
export interface UnknownAnswer {
  /** Index in the file's `responses`. */
  readonly index: number;
  readonly itemKey: string;
  /** Why it is not in the plan, for the message. */
  readonly why: string;
}

export interface RunImportCheck {
  readonly incoming: RunRecord;
  readonly benchmark: BenchmarkRecord;
  readonly responses: readonly ResponseRecord[];
  readonly unknown: readonly UnknownAnswer[];
}

const fail = (file: string, field: string, message: string): never => {
  throw new InvalidInputError(`${file}: ${field}: ${message}`, { file, field });
};

/** The benchmark the export was made on, with the same content, or an error saying which differs. */
async function benchmarkOf(repos: Repositories, e: RunExport, incoming: RunRecord, file: string): Promise<BenchmarkRecord> {
  const claimed = e.provenance!.benchmark;
  const benchmark = (await repos.benchmarks.get(incoming.benchmarkId)) ?? (await repos.benchmarks.list()).find((b) => b.contentHash === claimed.contentHash);
  if (!benchmark) {
    fail(file, 'run.benchmarkId', `benchmark "${incoming.benchmarkId}" is not in this browser; import the same benchmark first (content hash ${claimed.contentHash.slice(0, 12)}…).`);
  }
  if (benchmark!.contentHash !== claimed.contentHash) {
    fail(
      file,
      'provenance.benchmark.contentHash',
      `the run was made on different content of "${benchmark!.name}" (${claimed.contentHash.slice(0, 12)}… there, ${benchmark!.contentHash.slice(0, 12)}… here); its answers would not line up with these cases.`,
    );
  }
  return benchmark!;
}

/**
 * Checks an export against this browser's benchmarks without storing anything.
 * @throws InvalidInputError naming the file and field: no provenance, benchmark
 *   missing or with other content, an item answered twice, an item key that
 *   disagrees with the answer's case, question, model, variant or sample.
 */
export async function checkRunImport(repos: Repositories, e: RunExport, file: string): Promise<RunImportCheck> {
  if (!e.provenance) {
    fail(file, 'provenance.benchmark.contentHash', 'missing, so the run cannot be matched to a benchmark here; only runs exported by NeuroEval can be imported.');
  }
  const incoming = runRecordOf(e, file);
  const benchmark = await benchmarkOf(repos, e, incoming, file);
  const p = incoming.provenance;

  const questions = new Map<string, Set<string>>();
  for (const c of await repos.cases.listByBenchmark(benchmark.id)) questions.set(c.id, new Set(c.questions.map((q) => q.id)));
  const models = new Set(p.models.map((m) => m.id));
  const variants = new Set<string>(p.variants);

  const firstAt = new Map<string, number>();
  const unknown: UnknownAnswer[] = [];
  e.responses.forEach((r, i) => {
    const at = `responses[${i}]`;
    // The variant is checked against the run's below; here it only spells the key.
    const expected = itemKeyOf({ caseId: r.caseId, questionId: r.questionId, modelId: r.modelId, variant: r.variant as Variant, sample: r.sample });
    // A version-1 key without a question id (`case|model|variant|s0`) is read as it was written.
    const legacy = r.questionId === '' && !r.itemKey.includes('#');
    if (r.itemKey !== expected && !legacy) {
      fail(file, `${at}.itemKey`, `"${r.itemKey}" does not match the answer's own case, question, model, variant and sample ("${expected}"); the file was edited by hand or is damaged.`);
    }
    const before = firstAt.get(r.itemKey);
    if (before !== undefined) {
      fail(file, `${at}.itemKey`, `item "${r.itemKey}" (case "${r.caseId}") is answered twice, at responses[${before}] and ${at}; a run has one answer per item, so the file cannot be imported as it is.`);
    }
    firstAt.set(r.itemKey, i);
    const caseQuestions = questions.get(r.caseId);
    const why = !caseQuestions
      ? `case "${r.caseId}" is not in "${benchmark.name}"`
      : !caseQuestions.has(r.questionId) && !legacy
        ? `case "${r.caseId}" has no question "${r.questionId}"`
        : !models.has(r.modelId)
          ? `model "${r.modelId}" is not one of the run's models`
          : !variants.has(r.variant)
            ? `variant "${r.variant}" is not one of the run's variants`
            : r.sample >= p.samples || r.sample < 0 || !Number.isInteger(r.sample)
              ? `sample ${r.sample} is outside the run's ${p.samples} sample(s)`
              : null;
    if (why) unknown.push({ index: i, itemKey: r.itemKey, why });
  });
  checkReviews(e, file);
  return { incoming, benchmark, responses: e.responses, unknown };
}

/**
 * Each review must be of an answer in the file (by that answer's `id`), once
 * per id: a review of an answer the file does not carry would point at nothing here.
 */
function checkReviews(e: RunExport, file: string): void {
  const answers = new Set(e.responses.map((r) => r.id));
  const seen = new Map<string, number>();
  (e.reviews ?? []).forEach((r, i) => {
    const at = `reviews[${i}]`;
    if (!answers.has(r.responseId)) {
      fail(file, `${at}.responseId`, `review "${r.id}" by reviewer "${r.reviewerId}" is of answer "${r.responseId}", which is not among the file's answers; nothing was stored.`);
    }
    const before = seen.get(r.id);
    if (before !== undefined) fail(file, `${at}.id`, `review "${r.id}" appears twice, at reviews[${before}] and ${at}; the file was edited by hand or is damaged.`);
    seen.set(r.id, i);
  });
}

/** The refusal for answers outside the plan: how many, the first by position and reason, and what to do. */
export function unknownAnswersError(check: RunImportCheck, file: string): InvalidInputError {
  const first = check.unknown[0]!;
  const n = check.unknown.length;
  const field = `responses[${first.index}]`;
  return new InvalidInputError(
    `${file}: ${field}: ${n} answer${n === 1 ? ' is' : 's are'} for items this run's plan on "${check.benchmark.name}" does not have (first: ${first.why}, item "${first.itemKey}"); nothing was stored. Leave ${n === 1 ? 'it' : 'them'} out to import the other ${check.responses.length - n}.`,
    { file, field },
  );
}
