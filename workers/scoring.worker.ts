/**
 * Scoring, off the main thread: reads a run's answers, cases and reviews from
 * IndexedDB, loads the chosen local judge (a text LLM) and similarity encoder
 * through transformers.js in this worker, scores every answer
 * (`src/core/scoring/run`) and stores the result as the run's next score
 * version, in one transaction. A cancelled or failed score stores nothing,
 * so the previous version stays the current one.
 */
import type { BenchCase } from '../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../src/core/db/index.ts';
import { InvalidInputError, NeuroEvalError, throwIfAborted } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import type { RunResponse } from '../src/core/runner/types.ts';
import { encoderFromEmbedder, scoreRun, type LocalJudge } from '../src/core/scoring/run/index.ts';
import { exposeApi } from './runtime/expose.ts';
import { models, type TransformersLoadInput } from './transformers-models.ts';

/** A local model chosen for scoring: a folder URL (the app's own `models/<id>/`) and a device. */
export interface ScoringModelChoice {
  readonly modelId: string;
  readonly location: string;
  readonly device: 'webgpu' | 'wasm';
}

export interface ScoreRunInput {
  readonly runId: string;
  /** A text LLM to judge equivalence and rubric items; rules only without one. */
  readonly judge?: ScoringModelChoice | null;
  /** An encoder for BERTScore and cosine; lexical metrics only without one. */
  readonly encoder?: ScoringModelChoice | null;
  readonly idf?: boolean;
  /** bert_score rescale baseline (P, R, F) for the encoder, or none for raw scores. */
  readonly baseline?: { readonly precision: number; readonly recall: number; readonly f: number } | null;
  /** Judge proposes error classes for wrong answers (default on with a judge). */
  readonly taxonomy?: boolean;
  readonly seed?: number;
  readonly resamples?: number;
}

export interface ScoreRunOutput {
  readonly scoreSetId: string;
  readonly version: number;
  readonly items: number;
  readonly durationMs: number;
  readonly judgeCalls: number;
  readonly judgeReused: number;
}

let reposPromise: Promise<Repositories> | null = null;
const database = (): Promise<Repositories> => (reposPromise ??= openDatabase().then((db) => createRepositories(db)));

function loadInput(choice: ScoringModelChoice, task: 'text-generation' | 'feature-extraction'): TransformersLoadInput {
  return { source: { kind: 'folder', location: choice.location }, device: choice.device, task, modelId: choice.modelId };
}

/** The run's protocol: recorded in provenance (and in the stored configuration). */
function protocolOf(provenance: unknown): string {
  const p = provenance as { protocol?: { id?: unknown }; config?: { protocolId?: unknown } } | null;
  const id = p?.protocol?.id ?? p?.config?.protocolId;
  if (typeof id !== 'string') throw new InvalidInputError('The run records no protocol, so its answers cannot be scored.', { field: 'provenance.protocol' });
  return id;
}

export const scoringApi = {
  /** Scores a run and stores the result as its next score version; reports `{ phase, done, total }`. */
  async score(input: ScoreRunInput, ctx: CallContext): Promise<ScoreRunOutput> {
    const started = performance.now();
    const repos = await database();
    const run = await repos.runs.get(input.runId);
    if (!run) throw new NeuroEvalError('NOT_FOUND', `Run "${input.runId}" no longer exists.`);
    const protocolId = protocolOf(run.provenance);
    const [responses, caseRows, benchmark, reviews] = await Promise.all([
      repos.responses.listByRun(run.id) as Promise<RunResponse[]>,
      repos.cases.listByBenchmark(run.benchmarkId),
      repos.benchmarks.get(run.benchmarkId),
      repos.reviews.listByRun(run.id),
    ]);
    const cases: BenchCase[] = caseRows.map(({ benchmarkId: _b, ...c }) => c);

    let judge: LocalJudge | undefined;
    if (input.judge) {
      ctx.progress({ phase: 'load-judge', done: 0, total: 1, message: input.judge.modelId });
      const gen = await models.generator(loadInput(input.judge, 'text-generation'), ctx);
      judge = { id: input.judge.modelId, engine: { generate: (request, options) => gen.generate(request, { ...request.sampling, ...(options?.signal ? { signal: options.signal } : {}) }) } };
    }
    let encoder;
    if (input.encoder) {
      ctx.progress({ phase: 'load-encoder', done: 0, total: 1, message: input.encoder.modelId });
      const { embedder } = await models.encoder(loadInput(input.encoder, 'feature-extraction'), ctx);
      encoder = encoderFromEmbedder(embedder, input.encoder.modelId, ctx.signal);
    }
    throwIfAborted(ctx.signal);
    const latest = judge ? await repos.scores.latestSet(run.id) : undefined;
    const previous = latest ? await repos.scores.listBySet(latest.id) : [];

    const result = await scoreRun(
      { protocolId, responses, cases, reviews, previous, ...(benchmark?.manifest.protocolDefaults ? { defaults: benchmark.manifest.protocolDefaults } : {}) },
      {
        ...(input.seed !== undefined ? { seed: input.seed } : {}),
        ...(input.resamples !== undefined ? { resamples: input.resamples } : {}),
        ...(judge ? { judge } : {}),
        ...(encoder ? { encoder } : {}),
        ...(input.idf !== undefined ? { idf: input.idf } : {}),
        ...(input.baseline ? { baseline: input.baseline } : {}),
        ...(input.taxonomy !== undefined ? { taxonomy: input.taxonomy } : {}),
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress({ phase: 'score', done, total }),
      },
    );
    throwIfAborted(ctx.signal);
    ctx.progress({ phase: 'save', done: result.items.length, total: result.items.length });
    const durationMs = Math.round(performance.now() - started);
    const set = await repos.scores.saveVersion(run.id, { durationMs, config: result.config, summary: result.summary }, result.items);
    return { scoreSetId: set.id, version: set.version, items: result.items.length, durationMs, judgeCalls: result.summary.judgeCalls, judgeReused: result.summary.judgeReused };
  },
};

export type ScoringApi = typeof scoringApi;

exposeApi(scoringApi);
