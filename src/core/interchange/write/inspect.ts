/**
 * A run as Inspect AI eval logs, one per arm (model × variant), so
 * `inspect view` opens NeuroEval's answers beside a team's other logs:
 * `.json` (one `EvalLog` document) or `.eval` (the ZIP layout of inspect_ai
 * `log/_recorders/eval.py`: `_journal/start.json`, `samples/<id>_epoch_<n>.json`,
 * `summaries.json`, `header.json`). Field names, types and required keys are
 * those of the pydantic models in inspect_ai `log/_log.py`, as published in
 * `_view/inspect-openapi.json` (a test validates every log against it).
 *
 * Each sample's input is the question text (with its options); images are not
 * written (they may be patient data), only their SHA-256 in the metadata. Its
 * scores are one score, `neuroeval`, whose value holds every metric of the
 * answer (null where not scorable); the results hold each metric's mean and
 * 95 % interval. `metadata.neuroeval` names the NeuroEval item, so a log read
 * back lands on the same case, question, variant and sample.
 */
import { zipSync, type Zippable } from 'fflate';
import type { ItemMetric } from '../../scoring/run/types.ts';
import { armsOf, isoOf, promptText, referenceText, safeName, sampleIdOf, uuidOf, type Arm, type ArmAnswer, type ExportFile, type ExportSource } from './common.ts';

/** inspect_ai `_util/constants.py` LOG_SCHEMA_VERSION. */
const LOG_SCHEMA_VERSION = 2;
const SCORER = 'neuroeval';

type Json = Record<string, unknown>;

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

function usageOf(a: ArmAnswer): Json | null {
  const u = a.response.usage;
  if (!finite(u?.promptTokens) && !finite(u?.completionTokens)) return null;
  const input = finite(u.promptTokens) ? Math.round(u.promptTokens) : 0;
  const output = finite(u.completionTokens) ? Math.round(u.completionTokens) : 0;
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}

/** Inspect's stop reasons for NeuroEval's finish reasons. */
function stopReason(finish: string): string {
  return finish === 'stop' ? 'stop' : finish === 'length' ? 'max_tokens' : 'unknown';
}

function generateConfig(source: ExportSource): Json {
  const s = source.exported.provenance?.sampling;
  const out: Json = {};
  if (finite(s?.temperature)) out.temperature = s.temperature;
  if (finite(s?.topP)) out.top_p = s.topP;
  if (finite(s?.maxTokens)) out.max_tokens = Math.round(s.maxTokens);
  if (finite(s?.seed)) out.seed = Math.round(s.seed);
  return out;
}

function sampleOf(a: ArmAnswer, arm: Arm, source: ExportSource): Json {
  const r = a.response;
  const failed = !!r.error;
  const input = promptText(a.question);
  const usage = usageOf(a);
  const metrics: Record<string, number | null> = {};
  const sources: Record<string, string> = {};
  for (const [k, m] of Object.entries(a.score?.metrics ?? {}) as [string, ItemMetric][]) {
    metrics[k] = m.value !== null && Number.isFinite(m.value) ? m.value : null;
    sources[k] = `${m.source}:${m.sourceId}`;
  }
  const scores = a.score ? { [SCORER]: { value: metrics, explanation: a.score.notes.join(' ') || null, metadata: { primary: a.score.primary, protocol: a.score.protocolId, sources }, history: [] } } : null;
  const created = isoOf(r.createdAt, source.exported.run.createdAt);
  return {
    id: sampleIdOf(a),
    epoch: r.sample + 1,
    input,
    ...(a.question?.options?.length ? { choices: a.question.options.map((o) => o.text) } : {}),
    target: referenceText(a.question),
    messages: [
      { role: 'user', content: input, source: 'input' },
      ...(failed ? [] : [{ role: 'assistant', content: r.rawText, source: 'generate', model: arm.modelId }]),
    ],
    output: {
      model: arm.modelId,
      choices: failed ? [] : [{ message: { role: 'assistant', content: r.rawText, source: 'generate', model: arm.modelId }, stop_reason: stopReason(r.finishReason) }],
      completion: failed ? '' : r.rawText,
      ...(usage ? { usage } : {}),
      ...(finite(r.latencyMs) ? { time: r.latencyMs / 1000 } : {}),
      ...(failed ? { error: r.error } : {}),
    },
    scores,
    metadata: {
      neuroeval: {
        caseId: r.caseId, questionId: r.questionId, variant: r.variant, sample: r.sample, itemKey: r.itemKey, responseId: r.id,
        parseError: r.parseError, finishReason: r.finishReason,
      },
      ...(a.kase?.split ? { split: a.kase.split } : {}),
      ...(a.kase?.taskFamily ? { task_family: a.kase.taskFamily } : {}),
      ...(a.kase?.diseaseGroup ? { disease_group: a.kase.diseaseGroup } : {}),
      ...(a.kase?.modality ? { modality: a.kase.modality } : {}),
      ...(a.kase?.images.length ? { image_sha256: a.kase.images.map((i) => i.sha256 ?? '') } : {}),
    },
    store: {},
    events: [],
    model_usage: usage ? { [arm.modelId]: usage } : {},
    role_usage: {},
    ...(finite(r.latencyMs) ? { total_time: r.latencyMs / 1000, working_time: r.latencyMs / 1000 } : {}),
    started_at: created,
    completed_at: created,
    ...(failed ? { error: { message: r.error, traceback: '', traceback_ansi: '' } } : {}),
    attachments: {},
  };
}

function resultsOf(arm: Arm, samples: number): Json | null {
  if (!arm.summary) return null;
  return {
    total_samples: samples,
    completed_samples: samples - arm.summary.failed,
    scores: arm.summary.metrics.map((m) => ({
      name: m.metric,
      scorer: SCORER,
      scored_samples: m.samples ?? m.n,
      unscored_samples: m.notScorable,
      params: {},
      metrics: {
        mean: { name: 'mean', value: m.mean, params: {} },
        ci_lower: { name: 'ci_lower', value: m.ci.lower, params: { level: 0.95, method: m.ciMethod } },
        ci_upper: { name: 'ci_upper', value: m.ci.upper, params: { level: 0.95, method: m.ciMethod } },
      },
      metadata: { label: m.label },
    })),
  };
}

export interface InspectLog {
  readonly fileStem: string;
  /** The `EvalLog` with its samples. */
  readonly log: Json;
}

/** One `EvalLog` per arm of the run. */
export function inspectLogs(source: ExportSource): InspectLog[] {
  const e = source.exported;
  const p = e.provenance;
  const run = e.run;
  const started = isoOf(p?.startedAt, run.createdAt);
  const completed = isoOf(p?.endedAt, run.updatedAt);
  const status = run.status === 'done' ? 'success' : run.status === 'failed' ? 'error' : run.status === 'cancelled' ? 'cancelled' : 'started';
  return armsOf(source).map((arm) => {
    const samples = arm.answers.map((a) => sampleOf(a, arm, source));
    const usage = arm.answers.map(usageOf).filter((u): u is Json => u !== null);
    const total = usage.length
      ? { [arm.modelId]: { input_tokens: usage.reduce((s, u) => s + (u.input_tokens as number), 0), output_tokens: usage.reduce((s, u) => s + (u.output_tokens as number), 0), total_tokens: usage.reduce((s, u) => s + (u.total_tokens as number), 0) } }
      : {};
    const task = run.benchmarkId + (arm.variant === 'none' ? '' : `_${arm.variant}`);
    const caseIds = [...new Set(arm.answers.map((a) => sampleIdOf(a)))];
    const model = p?.models.find((m) => m.id === arm.modelId);
    const log: Json = {
      version: LOG_SCHEMA_VERSION,
      status,
      eval: {
        eval_id: uuidOf(`${run.id}|${arm.modelId}|${arm.variant}|eval`),
        run_id: run.id,
        created: started,
        task,
        task_id: uuidOf(`${run.id}|${task}|task`),
        task_version: p?.benchmark.version ?? 0,
        task_display_name: `${p?.benchmark.name ?? run.benchmarkId}${arm.variant === 'none' ? '' : ` [${arm.variant}]`}`,
        task_attribs: {},
        task_args: {},
        task_args_passed: {},
        solver: `neuroeval/${p?.protocol.id ?? 'auto'}`,
        tags: ['neuroeval'],
        dataset: { name: p?.benchmark.name ?? run.benchmarkId, location: `neuroeval:${run.benchmarkId}`, samples: caseIds.length, sample_ids: caseIds, shuffled: false },
        model: arm.modelId,
        model_generate_config: generateConfig(source),
        model_args: {},
        config: { epochs: p?.samples ?? 1 },
        packages: { neuroeval: source.appVersion },
        metadata: {
          neuroeval: {
            runId: run.id, runName: run.name, variant: arm.variant,
            model: model ? { id: model.id, label: model.label ?? null, runtime: model.runtime, filesHash: model.filesHash } : { id: arm.modelId },
            benchmark: p?.benchmark ?? { id: run.benchmarkId },
            protocol: p?.protocol ?? null,
            ...(p?.imported ? { imported: p.imported } : {}),
          },
        },
      },
      plan: { name: 'plan', steps: [{ solver: `neuroeval/${p?.protocol.id ?? 'auto'}`, params: {}, params_passed: {} }], config: generateConfig(source) },
      results: resultsOf(arm, samples.length),
      stats: { started_at: started, completed_at: completed, model_usage: total, role_usage: {}, connection_limit_history: [] },
      ...(status === 'error' ? { error: { message: run.error ?? 'The run failed.', traceback: '', traceback_ansi: '' } } : {}),
      invalidated: false,
      tags: [],
      metadata: {},
      samples,
    };
    const stamp = started.replace(/\.\d+Z$/, '+00-00').replace(/:/g, '-');
    return { fileStem: `${stamp}_${safeName(task)}_${safeName(arm.modelId)}`, log };
  });
}

const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

/** The `.eval` ZIP of one log, laid out as inspect_ai's EvalRecorder writes it. */
export function inspectEvalZip(log: Json): Uint8Array {
  const enc = new TextEncoder();
  const json = (v: unknown) => [enc.encode(JSON.stringify(v)), { level: 6, mtime: FIXED_MTIME }] as [Uint8Array, { level: 6; mtime: Date }];
  const { samples, ...header } = log as Json & { samples: Json[] };
  const files: Zippable = {};
  files['_journal/start.json'] = json({ version: header.version, eval: header.eval, plan: header.plan });
  for (const s of samples) files[`samples/${String(s.id).replace(/[/\\]/g, '_')}_epoch_${s.epoch as number}.json`] = json(s);
  files['summaries.json'] = json(samples.map((s) => ({
    id: s.id, epoch: s.epoch, input: s.input, target: s.target, metadata: {}, scores: s.scores, model_usage: s.model_usage, role_usage: {},
    ...(s.error ? { error: (s.error as Json).message } : {}), completed: true,
  })));
  files['header.json'] = json(header);
  return zipSync(files);
}

/** The run as Inspect logs: `.json` files, or `.eval` archives. */
export function inspectFiles(source: ExportSource, format: 'json' | 'eval'): ExportFile[] {
  return inspectLogs(source).map(({ fileStem, log }) => ({
    path: `${fileStem}.${format}`,
    data: format === 'json' ? `${JSON.stringify(log, null, 2)}\n` : inspectEvalZip(log),
  }));
}
