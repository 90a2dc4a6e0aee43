/**
 * Inputs for the interchange tests: benchmarks read with the app's own import
 * pipeline, a NeuroEval run of the demo with known answers (several protocols,
 * two samples, a failed call), and result files laid out as other harnesses
 * write them, made here from their writers' code and published schemas
 * (docs/formats/): lmms-eval and lm-eval `--log_samples` lines, Inspect AI
 * logs (`.json` and the `.eval` ZIP), Every Eval Ever instance records.
 */
import { strToU8, zipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { prepareImport } from '../../src/core/importers/import-pipeline.ts';
import { decodeText, type InputFile } from '../../src/core/bundle/importer.ts';
import type { BenchCase, Bundle } from '../../src/core/bundle/types.ts';
import { sha256Hex } from '../../src/core/hash/sha256.ts';
import { itemKeyOf } from '../../src/core/runner/plan.ts';
import { runProtocol } from '../../src/core/runner/protocol-adapter.ts';
import { buildProvenance } from '../../src/core/runner/provenance.ts';
import type { ResponseRecord } from '../../src/core/model/answer.ts';
import type { Variant } from '../../src/core/runner/types.ts';
import { toRunExport, type RunExport } from '../../src/core/scoring/io/run-export.ts';

export const DEMO_ZIP = fileURLToPath(new URL('../../public/demo/neuroeval-demo.zip', import.meta.url));
export const VLMEVALKIT = fileURLToPath(new URL('../fixtures/interchange/vlmevalkit/', import.meta.url));
export const SCHEMAS = fileURLToPath(new URL('../fixtures/interchange/schemas/', import.meta.url));

/** A benchmark read from files on disk with the app's import pipeline. */
export async function loadBundle(paths: readonly string[], kind?: string): Promise<Bundle> {
  const files: InputFile[] = paths.map((p) => {
    const bytes = new Uint8Array(readFileSync(p));
    return { path: p.split('/').pop()!, size: bytes.length, bytes: async () => bytes, text: async () => decodeText(bytes, p) };
  });
  const preview = await prepareImport(files, kind ? { kind } : {});
  if (!preview.bundle) throw new Error(`test benchmark did not import: ${preview.errors.map((e) => e.message).join('; ')}`);
  return preview.bundle;
}

export const demoBundle = () => loadBundle([DEMO_ZIP]);
export const mcqBundle = () => loadBundle([`${VLMEVALKIT}NeuroMCQ.tsv`]);

/** A right (or, every third case, a wrong) answer to a demo case, in the form its protocol asks for. */
export function demoAnswer(kase: BenchCase, i: number, sample: number): string {
  const right = (i + sample) % 3 !== 0;
  const ref = kase.questions[0]!.reference ?? {};
  switch (kase.taskFamily) {
    case 'classification': {
      const l = ref.labels ?? {};
      return JSON.stringify({
        modality: l.modality ?? null, specialized_sequence: l.specialized_sequence ?? null, plane: l.plane ?? null,
        diagnosis_name: right ? (l.diagnosis_name ?? null) : l.diagnosis_name === 'normal' ? 'tumor' : 'normal',
        diagnosis_detailed: right ? (l.diagnosis_detailed ?? null) : null, icd10_code: null, severity_score: 0.4,
        diagnosis_confidence: right ? 0.9 : 0.6, severity_confidence: 0.5,
      });
    }
    case 'multiple-choice':
      return right ? `The answer is ${ref.answer}.` : 'Answer: A';
    case 'differential-diagnosis':
      return JSON.stringify({ hypotheses: [{ rank: 1, diagnosis: right ? ref.diagnosis : 'Migraine', confidence: 0.7, evidence: 'imaging' }, { rank: 2, diagnosis: 'Tension headache', confidence: 0.1, evidence: null }] });
    case 'lesion-recognition':
      return JSON.stringify({ type: right ? (ref.lesion?.type ?? null) : 'cyst', location: ref.lesion?.location ?? null, laterality: ref.lesion?.laterality ?? null, sequence: ref.lesion?.sequence ?? null });
    default:
      return right ? `${ref.diagnosis ?? ''}. ${ref.rationale ?? ''}`.trim() : 'No abnormality is seen on these images.';
  }
}

export interface DemoRunOptions {
  readonly models?: readonly { id: string; label: string }[];
  readonly samples?: number;
  /** Cases of the demo to answer (default: every case). */
  readonly cases?: number;
}

/** A finished run of the demo with known answers, in the run-export shape, under protocol `auto`. */
export function demoRunExport(bundle: Bundle, options: DemoRunOptions = {}): RunExport {
  const models = options.models ?? [{ id: 'demo-a', label: 'Demo model A' }];
  const samples = options.samples ?? 1;
  const cases = bundle.cases.filter((c) => c.questions.length > 0).slice(0, options.cases ?? bundle.cases.length);
  const protocol = runProtocol('auto');
  const runId = 'run-demo-interchange';
  const t0 = Date.UTC(2026, 5, 1, 9, 0, 0);
  const responses: ResponseRecord[] = [];
  cases.forEach((kase, i) => {
    for (const m of models) {
      for (let s = 0; s < samples; s++) {
        const q = kase.questions[0]!;
        const itemKey = itemKeyOf({ caseId: kase.id, questionId: q.id, modelId: m.id, variant: 'none' as Variant, sample: s });
        const failed = i === 4 && s === 0;
        const raw = failed ? '' : demoAnswer(kase, i, s);
        const parsed = failed ? null : protocol.parse(raw, kase, q);
        responses.push({
          id: `${runId}/${itemKey}`, runId, itemKey, caseId: kase.id, questionId: q.id, cacheKey: '', modelId: m.id, variant: 'none', sample: s,
          rawText: raw, parsed: parsed?.ok ? parsed.value : null, parseError: parsed && !parsed.ok ? parsed.error : null,
          usage: { promptTokens: 100 + i, completionTokens: 20 + s, ttftMs: null, prefillTps: null, decodeTps: null },
          latencyMs: 250 + i, finishReason: failed ? 'error' : 'stop', createdAt: t0 + i * 1000,
          ...(failed ? { error: 'ENGINE_HTTP: the server answered 503' } : {}),
        });
      }
    }
  });
  const provenance = {
    ...buildProvenance({
      app: { version: '0.1.0', commit: 'abc123' },
      environment: { userAgent: 'test', crossOriginIsolated: true },
      models: models.map((m) => ({ id: m.id, label: m.label, runtime: 'transformers', files: [{ name: 'model.onnx', sha256: sha256Hex(m.id) }] })),
      protocol: { id: protocol.id, version: protocol.version, templateHashes: {} },
      sampling: { temperature: 0.7, topP: 0.9, seed: 42, maxTokens: 512 },
      samples,
      variants: ['none'],
      benchmark: { id: bundle.manifest.id, name: bundle.manifest.name, version: bundle.manifest.version, contentHash: bundle.manifest.contentHash },
      startedAt: t0,
    }),
    endedAt: t0 + 3_600_000,
  };
  return toRunExport(
    { id: runId, benchmarkId: bundle.manifest.id, name: 'Demo interchange run', status: 'done', createdAt: t0, updatedAt: t0 + 3_600_000, config: null, provenance, plan: { cases: cases.length, models: models.length, variants: 1, samples, items: responses.length } },
    responses,
    bundle.cases,
    { exportedAt: t0 + 3_600_000 },
  );
}

// ── Result files as the harnesses write them ────────────────────────────────

/** One answer of a harness run, before the harness lays it out. */
export interface HarnessAnswer {
  readonly docId: number | string;
  readonly prompt: string;
  readonly target: string;
  readonly raw: string;
  readonly metrics?: Readonly<Record<string, number>>;
}

const jsonl = (lines: readonly unknown[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

/**
 * lmms-eval `--log_samples`: `save_results_samples` pops `arguments` and `doc`,
 * sets `input` to the first argument, flattens a one-request `resps` /
 * `filtered_resps`, and drops `resps` when equal to `filtered_resps`.
 */
export function lmmsEvalSamplesJsonl(answers: readonly HarnessAnswer[], options: { think?: boolean } = {}): string {
  return jsonl(answers.map((a) => {
    const raw = options.think ? `<think>Looking at the image…</think>${a.raw}` : a.raw;
    const line: Record<string, unknown> = {
      doc_id: a.docId,
      target: a.target,
      ...(raw !== a.raw ? { resps: [raw] } : {}),
      filtered_resps: a.raw,
      token_counts: [{ input_tokens: 812, output_tokens: 9 }],
      doc_hash: sha256Hex(`doc ${a.docId}`),
      input: a.prompt,
      ...(a.metrics ?? {}),
    };
    return line;
  }));
}

/** lm-evaluation-harness `--log_samples` (`save_results_samples` after `evaluate`): one line per document. */
export function lmEvalSamplesJsonl(answers: readonly HarnessAnswer[]): string {
  return jsonl(answers.map((a) => ({
    doc_id: a.docId,
    doc: { idx: a.docId, question: a.prompt, answer: a.target },
    target: a.target,
    arguments: { gen_args_0: { arg_0: `Question: ${a.prompt}\nAnswer:`, arg_1: { until: ['\n\n'], do_sample: false, temperature: 0.0, max_gen_toks: 64 } } },
    resps: [[a.raw]],
    filtered_resps: [a.raw.trim()],
    filter: 'none',
    metrics: Object.keys(a.metrics ?? {}),
    doc_hash: sha256Hex(`doc ${a.docId}`),
    prompt_hash: sha256Hex(a.prompt),
    target_hash: sha256Hex(a.target),
    ...(a.metrics ?? {}),
  })));
}

/** lm-eval's results JSON (`results_<date>.json`) for one task, with the keys its evaluator and tracker write. */
export function lmEvalResultsJson(task: string, model: string): string {
  return JSON.stringify({
    results: { [task]: { alias: task, 'exact_match,none': 0.5, 'exact_match_stderr,none': 0.2 } },
    group_subtasks: { [task]: [] },
    configs: { [task]: { task, output_type: 'generate_until', generation_kwargs: { until: ['\n\n'], do_sample: false, temperature: 0.0, max_gen_toks: 64 }, repeats: 1, num_fewshot: 0 } },
    versions: { [task]: 1.0 },
    'n-shot': { [task]: 0 },
    higher_is_better: { [task]: { exact_match: true } },
    'n-samples': { [task]: { original: 6, effective: 6 } },
    config: { model: 'hf', model_args: `pretrained=${model},trust_remote_code=True`, batch_size: '16', batch_sizes: [], device: null, use_cache: null, limit: null, bootstrap_iters: 100000, gen_kwargs: null, random_seed: 0, numpy_seed: 1234, torch_seed: 1234, fewshot_seed: 1234 },
    git_hash: '1f84a09f',
    date: 1768964383.8593218,
    task_hashes: {},
    model_source: 'hf',
    model_name: model,
    model_name_sanitized: model.replace(/["<>:/|\\?*[\]]+/g, '__'),
  }, null, 2);
}

const LONG = 'Clinical history: '.padEnd(400, 'x');

/**
 * An Inspect AI `EvalLog` of a multiple-choice task, as inspect_ai writes it:
 * every field its pydantic models serialise (required in inspect-openapi.json),
 * a system message and content parts in the input, a long input condensed
 * into `attachments`, two epochs, a `choice` score per sample.
 */
export function inspectLog(answers: readonly HarnessAnswer[], options: { model?: string; epochs?: number } = {}): Record<string, unknown> {
  const model = options.model ?? 'openai/gpt-4o';
  const epochs = options.epochs ?? 1;
  const usage = { input_tokens: 120, output_tokens: 4, total_tokens: 124 };
  const samples = answers.flatMap((a, i) => Array.from({ length: epochs }, (_, e) => {
    const hash = sha256Hex(LONG).slice(0, 32);
    return {
      id: a.docId,
      epoch: e + 1,
      input: [
        { role: 'system', content: 'You are a neuroradiologist.', source: 'input' },
        { role: 'user', content: [{ type: 'text', text: `attachment://${hash}` }, { type: 'text', text: a.prompt }], source: 'input' },
      ],
      choices: ['T1', 'T2', 'FLAIR', 'DWI'],
      target: a.target,
      messages: [{ role: 'user', content: a.prompt, source: 'input' }, { role: 'assistant', content: a.raw, source: 'generate', model }],
      output: { model, choices: [{ message: { role: 'assistant', content: [{ type: 'text', text: a.raw }], source: 'generate', model }, stop_reason: 'stop' }], completion: a.raw, usage, time: 1.5 + i },
      scores: { choice: { value: a.metrics?.acc === 1 ? 'C' : 'I', answer: a.raw.slice(0, 1), explanation: a.raw, history: [] } },
      metadata: { category: 'neuro' },
      store: {},
      events: [],
      model_usage: { [model]: usage },
      role_usage: {},
      total_time: 1.5,
      working_time: 1.4,
      uuid: sha256Hex(`${a.docId}/${e}`).slice(0, 22),
      attachments: { [hash]: LONG },
    };
  }));
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: 'aBcDeFgHiJkLmNoPqRsTuV', run_id: 'QrStUvWxYzAbCdEfGhIjKl', created: '2026-07-01T10:00:00+00:00',
      task: 'neuro_mcq', task_id: 'XyZaBcDeFgHiJkLmNoPqRs', task_version: 0, task_attribs: {}, task_args: {}, task_args_passed: {},
      dataset: { name: 'neuro_mcq', location: 'neuro_mcq.jsonl', samples: answers.length, sample_ids: answers.map((a) => a.docId), shuffled: false },
      model, model_generate_config: { temperature: 0.2, top_p: 0.95, max_tokens: 256, seed: 7 }, model_args: {},
      config: { epochs, log_samples: true }, packages: { inspect_ai: '0.3.140' },
    },
    plan: { name: 'plan', steps: [{ solver: 'multiple_choice', params: {}, params_passed: {} }], config: {} },
    results: { total_samples: samples.length, completed_samples: samples.length, scores: [{ name: 'choice', scorer: 'choice', params: {}, metrics: { accuracy: { name: 'accuracy', value: 0.5, params: {} } } }] },
    stats: { started_at: '2026-07-01T10:00:00+00:00', completed_at: '2026-07-01T10:05:00+00:00', model_usage: { [model]: usage }, role_usage: {}, connection_limit_history: [] },
    invalidated: false,
    tags: [],
    metadata: {},
    samples,
  };
}

/** The `.eval` ZIP of a log as inspect_ai's EvalRecorder leaves it: journal, samples, summaries, header. */
export function inspectEvalBytes(log: Record<string, unknown>, options: { header?: boolean } = {}): Uint8Array {
  const { samples, ...header } = log as { samples: Record<string, unknown>[] } & Record<string, unknown>;
  const files: Record<string, Uint8Array> = { '_journal/start.json': strToU8(JSON.stringify({ version: 2, eval: header.eval, plan: header.plan })) };
  samples.forEach((s, i) => {
    files[`samples/${String(s.id)}_epoch_${String(s.epoch)}.json`] = strToU8(JSON.stringify(s));
    files[`_journal/summaries/${i + 1}.json`] = strToU8(JSON.stringify([{ id: s.id, epoch: s.epoch, input: s.input, target: s.target, metadata: {}, model_usage: {}, role_usage: {}, completed: true }]));
  });
  if (options.header !== false) {
    files['summaries.json'] = strToU8('[]');
    files['header.json'] = strToU8(JSON.stringify(header));
  }
  return zipSync(files);
}

/** Every Eval Ever instance-level records (schema 0.3.0), one per sample, as its converters write them. */
export function eeeInstancesJsonl(answers: readonly HarnessAnswer[], model = 'meta-llama/Llama-3.2-11B-Vision-Instruct'): string {
  return jsonl(answers.map((a) => ({
    schema_version: '0.3.0',
    evaluation_id: `neuro_mcq/${model}/1768964383`,
    model_id: model,
    evaluation_name: 'neuro_mcq',
    sample_id: String(a.docId),
    sample_hash: sha256Hex(a.prompt + a.target),
    interaction_type: 'single_turn',
    input: { raw: a.prompt, reference: [a.target] },
    output: { raw: [a.raw] },
    answer_attribution: [{ turn_idx: 0, source: 'output.raw', extracted_value: a.raw.slice(0, 1), extraction_method: 'regex', is_terminal: true }],
    evaluation: { score: a.metrics?.acc ?? 0, is_correct: a.metrics?.acc === 1 },
    token_usage: { input_tokens: 300, output_tokens: 3, total_tokens: 303 },
    performance: { latency_ms: 840 },
  })));
}

/** The six answers of the VLMEvalKit fixture, as a harness that numbers documents from 0 would log them. */
export function mcqAnswers(bundle: Bundle): HarnessAnswer[] {
  const raws = ['C', 'The answer is B.', 'B', 'A', '(C)', 'D'];
  return bundle.cases.map((c, i) => {
    const q = c.questions[0]!;
    const prompt = `${q.text}\n${(q.options ?? []).map((o) => `${o.key}. ${o.text}`).join('\n')}\nAnswer with the option's letter.`;
    const right = raws[i]!.replace(/[^A-D]/g, '').slice(-1) === q.reference?.answer;
    return { docId: i, prompt, target: q.reference?.answer ?? '', raw: raws[i]!, metrics: { acc: right ? 1 : 0 } };
  });
}
