/**
 * Scores a whole run: resolves each answer's protocol (a fixed one, or the
 * case's default for `auto` runs), folds clinicians' reviews into
 * adjudications, scores every answer, and summarises per arm. Pure apart
 * from the injected judge and encoder, so the worker, the CLI and the tests
 * share it.
 */
import { runConsistency } from './consistency.ts';
import type { BenchCase, ProtocolDefaults } from '../../bundle/types.ts';
import type { ReviewRecord } from '../../model/review.ts';
import { InvalidInputError, throwIfAborted } from '../../errors.ts';
import { getProtocol, protocolFor } from '../../protocols/registry.ts';
import type { ResponseRecord } from '../../model/answer.ts';
import { TAXONOMY_VERSION } from '../equivalence/taxonomy.ts';
import { findQuestion } from '../neurovlm/items.ts';
import { EQUIVALENCE_RUBRIC_VERSION, JudgeService, type LocalJudge } from './judge-service.ts';
import { scoreItem, similarityReferences } from './score-item.ts';
import type { Adjudication } from './scorers/item.ts';
import type { BertScore } from '../metrics/bertscore.ts';
import { PairRecorder, SimilarityService, type SimilarityEncoder } from './similarity.ts';
import { cachedEncoder, type ScoringCacheStore } from './scoring-cache.ts';
import { BERTSCORE_BATCH_SIZE } from '../metrics/bertscore.ts';
import { summariseArms } from './summary.ts';
import { RUN_SCORER_VERSION, isReviewVerdict, type ItemScore, type RunScoreSummary, type ScoringConfig } from './types.ts';


export interface RunScoringInput {
  /** The run's protocol id, or `auto`. */
  readonly protocolId: string;
  /** The benchmark's protocol defaults (used by `auto`). */
  readonly defaults?: ProtocolDefaults;
  readonly responses: readonly ResponseRecord[];
  readonly cases: readonly BenchCase[];
  readonly reviews?: readonly ReviewRecord[];
  /** Items of an earlier score set: their judge replies are reused when the judge and request are the same. */
  readonly previous?: readonly ItemScore[];
  /**
   * Answers a person gave through a form (a reader study): which metrics each
   * protocol's form asked for. Other metrics are not scored at all, and the
   * figures only a model's raw output has (JSON validity, the NeuroVLM-Bench
   * analysis and the benchmark's own figures) are left out of the summary.
   */
  readonly askedOnly?: (protocolId: string, metric: string) => boolean;
}

interface RunScoringOptions {
  readonly seed?: number;
  readonly resamples?: number;
  readonly judge?: LocalJudge;
  readonly encoder?: SimilarityEncoder;
  /** IDF-weighted BERTScore over the run's references (bert_score `idf=True`). */
  readonly idf?: boolean;
  /** Rescale BERTScore with this baseline (bert_score `rescale_with_baseline`, the encoder's P/R/F row). */
  readonly baseline?: BertScore;
  /** bert_score's `batch_size` for matching pairs (default 64): pairs share padding within a batch, in the order they are scored. */
  readonly bertscoreBatchSize?: number;
  /** A persistent cache of judge replies and encoder vectors (keyed by model, prompt and input): what it holds is not asked again. */
  readonly cache?: ScoringCacheStore;
  /** Ask the judge for error classes of wrong answers (default: on when there is a judge). */
  readonly taxonomy?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface RunScoringResult {
  readonly items: ItemScore[];
  readonly summary: RunScoreSummary;
  readonly config: ScoringConfig;
}

/** The most frequent value of votes given oldest first; a tie goes to the latest of the tied values. Null for no votes. */
function majority<T>(votes: readonly { value: T; by: string }[]): { value: T; by: string[] } | null {
  if (votes.length === 0) return null;
  const counts = new Map<T, number>();
  for (const v of votes) counts.set(v.value, (counts.get(v.value) ?? 0) + 1);
  const best = Math.max(...counts.values());
  const leaders = [...counts].filter(([, n]) => n === best).map(([v]) => v);
  const value = leaders.length === 1 ? leaders[0]! : [...votes].reverse().find((v) => leaders.includes(v.value))!.value;
  return { value, by: [...new Set(votes.filter((v) => v.value === value).map((v) => v.by))] };
}

/**
 * The reviewers' verdict on each answer: the majority of `correct` /
 * `incorrect`, a tie going to the latest review; and, for rubric answers,
 * each rubric item's mark by the same rule. Other verdicts (e.g. `unsure`)
 * decide nothing here (they still count in agreement statistics).
 */
export function adjudications(reviews: readonly ReviewRecord[]): Map<string, Adjudication> {
  const byResponse = new Map<string, ReviewRecord[]>();
  for (const r of reviews) {
    const list = byResponse.get(r.responseId);
    if (list) list.push(r);
    else byResponse.set(r.responseId, [r]);
  }
  const out = new Map<string, Adjudication>();
  for (const [responseId, all] of byResponse) {
    const sorted = [...all].sort((a, b) => a.createdAt - b.createdAt);
    const verdictVotes = sorted.filter((r) => isReviewVerdict(r.verdict)).map((r) => ({ value: r.verdict === 'correct', by: r.reviewerId }));
    const verdict = majority(verdictVotes);
    const itemIds = [...new Set(sorted.flatMap((r) => Object.keys(r.rubricMet ?? {})))];
    const rubric: Record<string, { met: boolean; by: string }> = {};
    for (const id of itemIds) {
      const m = majority(sorted.filter((r) => r.rubricMet && id in r.rubricMet).map((r) => ({ value: r.rubricMet![id]!, by: r.reviewerId })));
      if (m) rubric[id] = { met: m.value, by: m.by.join(', ') };
    }
    if (!verdict && itemIds.length === 0) continue;
    const yes = verdictVotes.filter((v) => v.value).length;
    const deciding = verdict ? sorted.filter((r) => isReviewVerdict(r.verdict) && (r.verdict === 'correct') === verdict.value) : [];
    out.set(responseId, {
      correct: verdict ? verdict.value : null,
      reviewerId: verdict ? verdict.by.join(', ') : [...new Set(sorted.map((r) => r.reviewerId))].join(', '),
      note: verdictVotes.length > 1 ? `${yes} of ${verdictVotes.length} reviewers: correct. ${deciding.at(-1)?.reason ?? ''}`.trim() : (deciding.at(-1)?.reason ?? ''),
      ...(itemIds.length ? { rubric } : {}),
    });
  }
  return out;
}

/** Judge replies recorded in earlier items by this judge, keyed by request hash. */
function previousReplies(previous: readonly ItemScore[], judgeId: string): [string, string][] {
  const out: [string, string][] = [];
  for (const it of previous) {
    for (const v of it.verdicts) if (v.source === 'judge' && v.decidedBy === judgeId && v.promptHash && v.raw !== undefined) out.push([v.promptHash, v.raw]);
    const t = it.taxonomy;
    if (t && t.sourceId === judgeId && t.promptHash && t.raw !== undefined) out.push([t.promptHash, t.raw]);
  }
  return out;
}

/** An item with only the metrics `keep` accepts; the primary moves to the first one kept when its own goes. */
function onlyAsked(item: ItemScore, keep: (metric: string) => boolean): ItemScore {
  const metrics = Object.fromEntries(Object.entries(item.metrics).filter(([k]) => keep(k)));
  const primary = item.primary !== null && item.primary in metrics ? item.primary : (Object.keys(metrics)[0] ?? null);
  return { ...item, metrics, primary };
}

export async function scoreRun(input: RunScoringInput, options: RunScoringOptions = {}): Promise<RunScoringResult> {
  const seed = options.seed ?? 0;
  const resamples = options.resamples ?? 1000;
  if (input.protocolId !== 'auto' && !getProtocol(input.protocolId)) throw new InvalidInputError(`The run's protocol "${input.protocolId}" is not one this version knows, so its answers cannot be scored.`, { field: 'protocol' });
  const caseMap = new Map(input.cases.map((c) => [c.id, c]));
  const judge = options.judge ? new JudgeService(options.judge, previousReplies(input.previous ?? [], options.judge.id), options.signal, options.cache) : undefined;
  if (options.baseline && [options.baseline.precision, options.baseline.recall, options.baseline.f].some((b) => !Number.isFinite(b) || b >= 1)) {
    throw new InvalidInputError('A BERTScore baseline needs three numbers below 1 (precision, recall, F).', { field: 'baseline' });
  }
  const batchSize = options.bertscoreBatchSize ?? BERTSCORE_BATCH_SIZE;
  const cached = options.encoder && options.cache ? cachedEncoder(options.encoder, options.cache) : undefined;
  const encoder = cached ?? options.encoder;
  const similarity = encoder ? new SimilarityService(encoder, options.baseline, batchSize) : undefined;
  const adjudicated = adjudications(input.reviews ?? []);
  const proposeTaxonomy = options.taxonomy ?? true;

  // One row per item: a re-asked item keeps only its latest answer.
  const latest = new Map<string, ResponseRecord>();
  for (const r of input.responses) {
    const seen = latest.get(r.id);
    if (!seen || seen.createdAt <= r.createdAt) latest.set(r.id, r);
  }
  const responses = [...latest.values()];

  const protocolOf = (found: ReturnType<typeof findQuestion>): string =>
    input.protocolId !== 'auto' ? input.protocolId : found ? protocolFor(found.kase, input.defaults).id : 'unknown';

  if (similarity && options.idf) {
    // bert_score's idf is over the references of the texts it scores: one per scored pair, each dialogue turn included.
    const refs = responses.flatMap((r) => {
      const found = findQuestion(caseMap, r);
      return similarityReferences(protocolOf(found), found?.question, r);
    });
    await similarity.useIdf(refs);
  }

  if (similarity && batchSize > 1) {
    // bert_score pads pairs in batches of the list it is given: a dry run (no judge, no encoder) lists the pairs scoring will
    // ask for, in order, so each learns its batch's padding before it is scored.
    const recorder = new PairRecorder(similarity.id);
    for (const r of responses) {
      const found = findQuestion(caseMap, r);
      await scoreItem({ response: r, caseId: r.caseId, questionId: found?.question?.id ?? r.questionId, kase: found?.kase, question: found?.question, protocolId: protocolOf(found), task: input.defaults?.task, similarity: recorder, adjudication: adjudicated.get(r.id), proposeTaxonomy: false });
    }
    await similarity.planPairs(recorder.pairs);
  }

  const items: ItemScore[] = [];
  const total = responses.length;
  const asked = input.askedOnly;
  let lastReport = 0;
  for (const r of responses) {
    throwIfAborted(options.signal);
    const found = findQuestion(caseMap, r);
    const protocolId = protocolOf(found);
    const item = await scoreItem({
      response: r,
      caseId: r.caseId,
      questionId: found?.question?.id ?? r.questionId,
      kase: found?.kase,
      question: found?.question,
      protocolId,
      task: input.defaults?.task,
      judge,
      similarity,
      adjudication: adjudicated.get(r.id),
      proposeTaxonomy,
    });
    items.push(asked ? onlyAsked(item, (metric) => asked(protocolId, metric)) : item);
    if (options.onProgress && (items.length === total || items.length - lastReport >= 200)) {
      lastReport = items.length;
      options.onProgress(items.length, total);
    }
  }

  const { arms, calibrationShift, neurovlmBench } = summariseArms(items, responses, input.cases, { seed, resamples, modelOutput: !asked });
  const consistency = runConsistency(responses);
  const latestReview = (input.reviews ?? []).reduce<number | null>((a, r) => (a === null || r.createdAt > a ? r.createdAt : a), null);
  return {
    items,
    summary: {
      arms, calibrationShift, items: items.length, failed: responses.filter((r) => !!r.error).length,
      judgeCalls: judge?.calls ?? 0, judgeReused: judge?.reused ?? 0,
      ...(cached ? { encoderVectors: { ...cached.counts } } : {}),
      ...(neurovlmBench ? { neurovlmBench } : {}),
      ...(consistency.length ? { consistency } : {}),
    },
    config: {
      scorerVersion: RUN_SCORER_VERSION,
      seed,
      resamples,
      judge: options.judge?.id ?? null,
      judgeRubricVersion: options.judge ? EQUIVALENCE_RUBRIC_VERSION : null,
      encoder: options.encoder?.id ?? null,
      ...(similarity ? { bertscore: { idf: !!options.idf, baseline: options.baseline ?? null, layer: await similarity.layer(), batchSize } } : {}),
      taxonomy: !!options.judge && proposeTaxonomy,
      taxonomyVersion: TAXONOMY_VERSION,
      reviewsUpTo: latestReview,
    },
  };
}
