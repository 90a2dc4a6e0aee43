/**
 * A scored run as Every Eval Ever records (evaleval/every_eval_ever, schema
 * 0.3.0): per model, an aggregate record `<uuid>.json` (`eval.schema.json`:
 * one evaluation result per metric and variant, with its 95 % interval) and
 * its instance-level records `<uuid>_samples.jsonl`
 * (`instance_level_eval.schema.json`: one line per answer and metric, joined
 * to the aggregate by `evaluation_result_id`), laid out as the datastore
 * wants them: `data/<benchmark>/<developer>/<model>/`. Both schemas are test
 * fixtures and every written record is validated against them.
 *
 * A failed call has no metric value; it is written as one record of the
 * arm's first metric with score 0, `is_correct` false and its `error`, as the
 * project's own lm-eval converter scores a sample without a value. An answer
 * no metric could decide (a rubric answer scored without a judge) is written
 * the same way with `metadata.neuroeval_not_scorable` saying why: the schema
 * requires a score, and the aggregate's figures leave such answers out.
 */
import { InvalidInputError } from '../../errors.ts';
import { sha256Hex } from '../../hash/sha256.ts';
import { LOWER_IS_BETTER } from '../../results/leaderboard.ts';
import { armsOf, decidedMetrics, isBinaryMetric, isoOf, promptText, referenceText, safeName, sampleIdOf, uuidOf, type Arm, type ArmAnswer, type ExportFile, type ExportSource } from './common.ts';

export const EEE_SCHEMA_VERSION = '0.3.0';

type Json = Record<string, unknown>;

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** The result id of a metric of an arm: the metric, with the variant when it is not the original images. */
const resultId = (arm: Pick<Arm, 'variant'>, metric: string) => (arm.variant === 'none' ? metric : `${metric}[${arm.variant}]`);

/** What the protocol's parser took from the answer: the option, class, diagnosis or lesion, else nothing. */
function extracted(parsed: unknown): string {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
  const p = parsed as Record<string, unknown>;
  for (const k of ['choice', 'diagnosis_name', 'diagnosis', 'type']) if (typeof p[k] === 'string') return p[k] as string;
  const h = Array.isArray(p.hypotheses) ? (p.hypotheses[0] as Record<string, unknown> | undefined) : undefined;
  return typeof h?.name === 'string' ? h.name : '';
}

function instanceLines(a: ArmAnswer, arm: Arm, evaluationId: string, evaluationName: string, aggregated: ReadonlySet<string>): Json[] {
  const r = a.response;
  const raw = promptText(a.question);
  const reference = referenceText(a.question);
  const metrics = decidedMetrics(a.score);
  // An answer with no decided metric (a failed call; a rubric answer without a judge) still gets one record, so no answer is lost.
  const undecided = !r.error && Object.keys(metrics).length === 0;
  // The stand-in record joins an aggregate result: the answer's primary metric when the arm has one, else the arm's first.
  const standIn = a.score?.primary && aggregated.has(a.score.primary) ? a.score.primary : ([...aggregated][0] ?? 'correct');
  const entries: [string, number][] = r.error || undecided ? [[standIn, 0]] : Object.entries(metrics).filter(([k]) => aggregated.has(k));
  const tokens = finite(r.usage.promptTokens) || finite(r.usage.completionTokens)
    ? { token_usage: { input_tokens: Math.round(r.usage.promptTokens ?? 0), output_tokens: Math.round(r.usage.completionTokens ?? 0), total_tokens: Math.round((r.usage.promptTokens ?? 0) + (r.usage.completionTokens ?? 0)) } }
    : {};
  return entries.map(([metric, score]) => ({
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: evaluationId,
    model_id: arm.modelId,
    evaluation_name: evaluationName,
    evaluation_result_id: resultId(arm, metric),
    sample_id: sampleIdOf(a),
    sample_hash: sha256Hex(raw + reference),
    interaction_type: 'single_turn',
    input: { raw, reference: [reference], ...(a.question?.options?.length ? { choices: a.question.options.map((o) => o.text) } : {}) },
    output: { raw: r.error ? [] : [r.rawText] },
    messages: null,
    answer_attribution: [{ turn_idx: 0, source: 'output.raw', extracted_value: extracted(r.parsed), extraction_method: `neuroeval:${a.score?.protocolId ?? 'protocol'}`, is_terminal: true }],
    // is_correct: the answer got the metric's best value (1); for continuous metrics that is a perfect score.
    evaluation: { score, is_correct: score === 1, num_turns: 1 },
    ...tokens,
    ...(finite(r.latencyMs) ? { performance: { latency_ms: r.latencyMs } } : {}),
    error: r.error ?? null,
    metadata: {
      neuroeval_case_id: r.caseId,
      neuroeval_question_id: r.questionId,
      neuroeval_variant: r.variant,
      neuroeval_sample: String(r.sample),
      neuroeval_item_key: r.itemKey,
      neuroeval_response_id: r.id,
      neuroeval_metric_source: r.error ? 'failed call' : undecided ? 'not scorable' : `${a.score!.metrics[metric]!.source}:${a.score!.metrics[metric]!.sourceId}`,
      ...(undecided ? { neuroeval_not_scorable: a.score?.notes.join(' ') || 'no metric could be decided' } : {}),
    },
  }));
}

/**
 * The aggregate and instance records of a scored run, one pair per model.
 * @throws InvalidInputError when the run has not been scored (the schema's records hold scores).
 */
export function everyEvalEverFiles(source: ExportSource): ExportFile[] {
  const e = source.exported;
  const p = e.provenance;
  if (!source.scores?.summary) throw new InvalidInputError('Every Eval Ever records hold scores: score the run first, then export it.', { field: 'scores' });
  const retrieved = Math.round((p?.endedAt ?? e.run.updatedAt) / 1000);
  const benchmarkName = p?.benchmark.name ?? e.run.benchmarkId;
  const byModel = new Map<string, Arm[]>();
  for (const arm of armsOf(source)) {
    const list = byModel.get(arm.modelId);
    if (list) list.push(arm);
    else byModel.set(arm.modelId, [arm]);
  }
  const s = p?.sampling;
  const generationArgs: Json = {
    ...(finite(s?.temperature) ? { temperature: s.temperature } : {}),
    ...(finite(s?.topP) ? { top_p: s.topP } : {}),
    ...(finite(s?.maxTokens) && s.maxTokens >= 1 ? { max_tokens: Math.round(s.maxTokens) } : {}),
  };
  const files: ExportFile[] = [];
  for (const [modelId, arms] of byModel) {
    const model = p?.models.find((m) => m.id === modelId);
    const uuid = uuidOf(`${e.run.id}|${modelId}|every-eval-ever`);
    const folder = `data/${safeName(e.run.benchmarkId)}/${safeName(model?.runtime ?? 'unknown')}/${safeName(modelId)}`;
    const evaluationId = `${e.run.benchmarkId}/${modelId}/${retrieved}`;
    const lines: Json[] = [];
    const results: Json[] = [];
    for (const arm of arms) {
      const name = arm.variant === 'none' ? benchmarkName : `${benchmarkName} [${arm.variant}]`;
      const metrics = arm.summary?.metrics ?? [];
      for (const m of metrics) {
        results.push({
          evaluation_result_id: resultId(arm, m.metric),
          evaluation_name: name,
          source_data: { dataset_name: benchmarkName, source_type: 'other', additional_details: { benchmark_id: e.run.benchmarkId, content_hash: p?.benchmark.contentHash ?? '', version: p?.benchmark.version ?? '' } },
          evaluation_timestamp: isoOf(p?.endedAt, e.run.updatedAt),
          metric_config: {
            evaluation_description: m.label,
            metric_id: `neuroeval.${m.metric}`,
            metric_name: m.label,
            metric_kind: isBinaryMetric(m.metric) ? 'accuracy' : 'similarity',
            metric_unit: 'proportion',
            lower_is_better: LOWER_IS_BETTER.has(m.metric),
            ...(isBinaryMetric(m.metric) ? { score_type: 'binary', min_score: 0, max_score: 1 } : { score_type: 'continuous', min_score: null, max_score: null }),
          },
          score_details: {
            score: m.mean,
            uncertainty: { confidence_interval: { lower: m.ci.lower, upper: m.ci.upper, confidence_level: 0.95, method: m.ciMethod }, num_samples: m.n },
          },
          generation_config: { generation_args: generationArgs, additional_details: { protocol: p?.protocol.id ?? 'auto', ...(finite(s?.seed) ? { seed: String(s.seed) } : {}), samples: String(p?.samples ?? 1) } },
        });
      }
      const aggregated = new Set(metrics.map((m) => m.metric));
      for (const a of arm.answers) lines.push(...instanceLines(a, arm, evaluationId, name, aggregated));
    }
    const jsonl = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    const samplesPath = `${folder}/${uuid}_samples.jsonl`;
    const aggregate: Json = {
      schema_version: EEE_SCHEMA_VERSION,
      evaluation_id: evaluationId,
      evaluation_timestamp: isoOf(p?.startedAt, e.run.createdAt),
      retrieved_timestamp: String(retrieved),
      source_metadata: {
        source_name: 'NeuroEval',
        source_type: 'evaluation_run',
        source_organization_name: 'NeuroEval (local run)',
        evaluator_relationship: 'third_party',
        additional_details: { run_id: e.run.id, run_name: e.run.name, ...(p?.imported ? { answers_from: `${p.imported.harness}: ${p.imported.file}`, answers_sha256: p.imported.sha256 } : {}) },
      },
      eval_library: { name: 'neuroeval', version: source.appVersion, additional_details: { commit: p?.app.commit ?? '', protocol: p?.protocol.id ?? 'auto' } },
      model_info: {
        name: model?.label ?? modelId,
        id: modelId,
        ...(model ? { inference_engine: { name: model.runtime } } : {}),
        additional_details: { deployment_type: 'self_deployed', model_availability: 'unknown', ...(model?.filesHash ? { files_sha256: model.filesHash } : {}) },
      },
      evaluation_results: results,
      detailed_evaluation_results: { format: 'jsonl', file_path: samplesPath, hash_algorithm: 'sha256', checksum: sha256Hex(jsonl), total_rows: lines.length },
    };
    files.push({ path: `${folder}/${uuid}.json`, data: `${JSON.stringify(aggregate, null, 2)}\n` }, { path: samplesPath, data: jsonl });
  }
  return files;
}
