/**
 * Scoring, off the main thread: reads a run's answers, cases and reviews from
 * IndexedDB, gets the chosen local judge (a text LLM of any runtime: a
 * transformers.js or WebLLM model, or an on-prem endpoint) and similarity
 * encoder (transformers.js) from the page's model host over the port given
 * with the call (this worker loads no model itself), scores every answer
 * (`src/core/scoring/run`) and stores the result as the run's next score
 * version, in one transaction. A cancelled or failed score stores nothing,
 * so the previous version stays the current one.
 */
import type { BenchCase } from '../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../src/core/db/index.ts';
import type { RunRecord } from '../src/core/runner/records.ts';
import { InvalidInputError, NeuroEvalError, throwIfAborted } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import type { ResponseRecord } from '../src/core/model/answer.ts';
import type { EngineSpec, TransformersSpec } from '../src/core/engines/spec.ts';
import { scoreRun, type LocalJudge } from '../src/core/scoring/run/index.ts';
import { askedOnlyFor } from '../src/core/readers/study.ts';
import { exposeApi } from './runtime/expose.ts';
import { hostClient, hostEncoder, hostEngine } from './runtime/host-engines.ts';

export interface ScoreRunInput {
  readonly runId: string;
  /** A port to the page's model host (`modelHost.connect()`, transferred with the call). */
  readonly host: MessagePort;
  /** A text LLM to judge equivalence and rubric items (any runtime); rules only without one. */
  readonly judge?: EngineSpec | null;
  /** A transformers.js encoder for BERTScore and cosine; lexical metrics only without one. */
  readonly encoder?: TransformersSpec | null;
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

/** The run's protocol: recorded in provenance (and in the stored configuration). */
function protocolOf(run: RunRecord): string {
  const id = run.provenance.protocol?.id ?? run.config?.protocolId;
  if (typeof id !== 'string') throw new InvalidInputError('The run records no protocol, so its answers cannot be scored.', { field: 'provenance.protocol' });
  return id;
}

const scoringApi = {
  /** Scores a run and stores the result as its next score version; reports `{ phase, done, total }`. */
  async score(input: ScoreRunInput, ctx: CallContext): Promise<ScoreRunOutput> {
    const started = performance.now();
    const repos = await database();
    const run = await repos.runs.get(input.runId);
    if (!run) throw new NeuroEvalError('NOT_FOUND', `Run "${input.runId}" no longer exists.`);
    const protocolId = protocolOf(run);
    const [responses, caseRows, benchmark, reviews] = await Promise.all([
      repos.responses.listByRun(run.id) as Promise<ResponseRecord[]>,
      repos.cases.listByBenchmark(run.benchmarkId),
      repos.benchmarks.get(run.benchmarkId),
      repos.reviews.listByRun(run.id),
    ]);
    const cases: BenchCase[] = caseRows.map(({ benchmarkId: _b, ...c }) => c);
    let result: Awaited<ReturnType<typeof scoreRun>>;

    const host = hostClient(input.host);
    const session = `score:${run.id}`;
    const judgeEngine = input.judge ? hostEngine(host, input.judge, session) : null;
    try {
      let judge: LocalJudge | undefined;
      if (input.judge && judgeEngine) {
        ctx.progress({ phase: 'load-judge', done: 0, total: 1, message: input.judge.label });
        await judgeEngine.load({ signal: ctx.signal });
        judge = { id: input.judge.id, engine: judgeEngine };
      }
      const encoder = input.encoder ? hostEncoder(host, input.encoder, session, ctx.signal) : undefined;
      if (input.encoder) ctx.progress({ phase: 'load-encoder', done: 0, total: 1, message: input.encoder.label });
      throwIfAborted(ctx.signal);
      const latest = judge ? await repos.scores.latestSet(run.id) : undefined;
      const previous = latest ? await repos.scores.listBySet(latest.id) : [];

      const askedOnly = askedOnlyFor(run);
      result = await scoreRun(
        { protocolId, responses, cases, reviews, previous, ...(benchmark?.manifest.protocolDefaults ? { defaults: benchmark.manifest.protocolDefaults } : {}), ...(askedOnly ? { askedOnly } : {}) },
        {
          ...(input.seed !== undefined ? { seed: input.seed } : {}),
          ...(input.resamples !== undefined ? { resamples: input.resamples } : {}),
          ...(judge ? { judge } : {}),
          ...(encoder ? { encoder } : {}),
          ...(input.idf !== undefined ? { idf: input.idf } : {}),
          ...(input.baseline ? { baseline: input.baseline } : {}),
          ...(input.taxonomy !== undefined ? { taxonomy: input.taxonomy } : {}),
          // Judge replies and encoder vectors kept in IndexedDB: a re-score asks only what was never asked.
          cache: repos.scoringCache,
          signal: ctx.signal,
          onProgress: (done, total) => ctx.progress({ phase: 'score', done, total }),
        },
      );
    } finally {
      // The scoring pass is over: its models may go (the host unloads them when another session needs the GPU).
      await judgeEngine?.unload().catch(() => {});
      host.close();
    }
    throwIfAborted(ctx.signal);
    ctx.progress({ phase: 'save', done: result.items.length, total: result.items.length });
    const durationMs = Math.round(performance.now() - started);
    const set = await repos.scores.saveVersion(run.id, { durationMs, config: result.config, summary: result.summary }, result.items);
    return { scoreSetId: set.id, version: set.version, items: result.items.length, durationMs, judgeCalls: result.summary.judgeCalls, judgeReused: result.summary.judgeReused };
  },
};

export type ScoringApi = typeof scoringApi;

exposeApi(scoringApi);
