/**
 * Per-sample logs of lm-evaluation-harness (`--log_samples`:
 * `samples_<task>_<date>.jsonl`) and of lmms-eval (`<date>_samples_<task>.jsonl`),
 * with the run's results JSON beside them when given (model, model
 * arguments, generation settings, seeds).
 *
 * One JSON object per line, as `EvaluationTracker.save_results_samples`
 * writes it: `doc_id`, `target` (text), `resps` (the raw answers; lmms-eval
 * drops it when equal to `filtered_resps`), `filtered_resps`, `doc_hash`, and
 * each metric's value under its own name. lm-eval adds `doc`, `arguments`
 * (`{gen_args_0: {arg_0: prompt, arg_1: generation kwargs}}`), `filter`,
 * `metrics` (the metric names), `prompt_hash`, `target_hash`; lmms-eval adds
 * `input` (the prompt), `token_counts` and `input_media`.
 */
import { parseJsonText } from '../../scoring/io/json-text.ts';
import { decodeUnicode } from '../../text/decode.ts';
import { FOREIGN_LIMITS, describe, flattenSettings, foreignError, idField, isObj, numberOrNull, scoreValue, textField, type ForeignItem, type ForeignLog, type ForeignScore, type ForeignSetting, type NeuroEvalHint } from '../types.ts';

/** Keys of a sample line that are not metric values. */
const NOT_METRICS = new Set([
  'doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'input', 'token_counts', 'input_media',
]);

/** The hint a NeuroEval export leaves in `doc.neuroeval` (write/lm-eval.ts). */
function hintOf(doc: unknown): NeuroEvalHint | undefined {
  const ne = isObj(doc) && isObj(doc.neuroeval) ? doc.neuroeval : undefined;
  if (!ne || typeof ne.caseId !== 'string' || typeof ne.questionId !== 'string') return undefined;
  return { caseId: ne.caseId, questionId: ne.questionId, ...(typeof ne.variant === 'string' ? { variant: ne.variant } : {}) };
}

/** Per-sample details a NeuroEval export keeps when a question was answered more than once. */
function sampleHints(doc: unknown): { sample: number; scores: Record<string, ForeignScore>; error: string | null }[] | null {
  const ne = isObj(doc) && isObj(doc.neuroeval) ? doc.neuroeval : undefined;
  if (!ne || !Array.isArray(ne.samples)) return null;
  return ne.samples.map((s, i) => {
    const o = isObj(s) ? s : {};
    const scores: Record<string, ForeignScore> = {};
    if (isObj(o.scores)) for (const [k, v] of Object.entries(o.scores)) if (scoreValue(v) !== undefined) scores[k] = scoreValue(v)!;
    return { sample: typeof o.sample === 'number' ? o.sample : i, scores, error: typeof o.error === 'string' ? o.error : null };
  });
}

/** `resps` / `filtered_resps` as the list of answers to the document's one generation request. */
function answersOf(v: unknown, at: { file: string; line: number }, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [textField(v, { ...at, field }, field)!];
  if (!Array.isArray(v)) throw foreignError({ ...at, field }, `expected a list of answers, found ${describe(v)}.`);
  if (v.length > 0 && Array.isArray(v[0])) {
    if (v.length > 1) {
      throw foreignError({ ...at, field }, `holds ${v.length} requests for one document (a log-likelihood or multiple-choice task): NeuroEval scores generated answers only.`);
    }
    return answersOf(v[0], at, `${field}[0]`);
  }
  return v.map((x, i) => textField(x, { ...at, field: `${field}[${i}]` }, `${field}[${i}]`) ?? '');
}

/** The prompt of a sample: lmms-eval's `input`, or lm-eval's first argument of the first request. */
function promptOf(rec: Record<string, unknown>, at: { file: string; line: number }): string | null {
  if (rec.input !== undefined) return textField(rec.input, { ...at, field: 'input' }, 'the input');
  const args = rec.arguments;
  if (isObj(args)) {
    const first = args.gen_args_0;
    if (isObj(first)) return textField(first.arg_0, { ...at, field: 'arguments.gen_args_0.arg_0' }, 'the prompt');
    if (Object.keys(args).length > 1) throw foreignError({ ...at, field: 'arguments' }, 'holds more than one request for one document: NeuroEval scores generated answers only.');
  }
  return null;
}

export interface LmEvalResults {
  readonly model: string | null;
  readonly settings: Record<string, ForeignSetting>;
  readonly createdAt: number | null;
}

/** What a results JSON (`results_<date>.json`, `<date>_results.json`) says of the model and its settings. */
export function readLmEvalResults(bytes: Uint8Array, file: string, task: string | null): LmEvalResults {
  const v = parseJsonText(decodeUnicode(bytes, file), file);
  if (!isObj(v) || !isObj(v.results)) throw foreignError({ file, field: 'results' }, 'expected the results JSON of lm-evaluation-harness or lmms-eval (an object with "results" and "config").');
  const config = isObj(v.config) ? v.config : {};
  const settings: Record<string, ForeignSetting> = {};
  for (const k of ['model', 'model_args', 'batch_size', 'gen_kwargs', 'random_seed', 'numpy_seed', 'torch_seed', 'fewshot_seed', 'model_dtype', 'model_revision', 'model_sha', 'limit']) {
    const x = config[k];
    if (x === null || ['string', 'number', 'boolean'].includes(typeof x)) settings[k] = x as ForeignSetting;
    else if (isObj(x)) Object.assign(settings, flattenSettings(x, k));
  }
  const taskConfig = task && isObj(v.configs) && isObj(v.configs[task]) ? v.configs[task] : undefined;
  if (taskConfig && isObj(taskConfig.generation_kwargs)) Object.assign(settings, flattenSettings(taskConfig.generation_kwargs, 'generation_kwargs'));
  for (const k of ['lm_eval_version', 'lmms_eval_version', 'git_hash']) if (typeof v[k] === 'string') settings[k] = v[k];
  const model = typeof v.model_name === 'string' && v.model_name ? v.model_name : typeof config.model === 'string' ? config.model : null;
  const date = numberOrNull(v.date);
  return { model, settings, createdAt: date === null ? null : Math.round(date * 1000) };
}

/** The task of a samples file's name (`samples_<task>_<date>.jsonl` or `<date>_samples_<task>.jsonl`). */
export function taskOfSamplesFile(file: string): string | null {
  const name = file.split('/').pop() ?? file;
  return /^samples_(.+)_\d{4}-\d{2}-\d{2}T[\d.:-]+\.jsonl$/i.exec(name)?.[1] ?? /_samples_(.+)\.jsonl$/i.exec(name)?.[1] ?? null;
}

/** True when a parsed line looks like an lm-eval or lmms-eval sample. */
export function isLmEvalSample(v: unknown): boolean {
  return isObj(v) && 'doc_id' in v && ('filtered_resps' in v || 'resps' in v);
}

/**
 * Reads a samples JSONL file. Refuses, naming the file, line and field: a
 * line that is not a JSON object, a missing `doc_id` or answer, wrong types,
 * a field past the size limits, a document with several requests.
 */
export function readLmEvalSamples(bytes: Uint8Array, file: string, sha256: string, options: { results?: LmEvalResults; model?: string } = {}): ForeignLog {
  const text = decodeUnicode(bytes, file);
  const items: ForeignItem[] = [];
  const warnings: string[] = [];
  let harness: 'lm-eval' | 'lmms-eval' | null = null;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const rec = parseJsonText(raw, file, line);
    const at = { file, line };
    if (!isObj(rec)) throw foreignError(at, 'expected a JSON object (one sample per line).');
    if (!('doc_id' in rec)) throw foreignError({ ...at, field: 'doc_id' }, 'missing: this is not a sample line of lm-evaluation-harness or lmms-eval.');
    if (!('resps' in rec) && !('filtered_resps' in rec)) throw foreignError({ ...at, field: 'filtered_resps' }, 'missing: the line holds no answer.');
    harness ??= 'arguments' in rec || 'prompt_hash' in rec ? 'lm-eval' : 'lmms-eval';
    if (items.length >= FOREIGN_LIMITS.maxItems) throw foreignError(at, `more than ${FOREIGN_LIMITS.maxItems.toLocaleString('en')} samples in one file.`);
    const id = idField(rec.doc_id, { ...at, field: 'doc_id' });
    // `resps` holds the raw text (lmms-eval keeps it only when it differs from filtered_resps): NeuroEval parses the raw answer itself.
    const answers = rec.resps !== undefined ? answersOf(rec.resps, at, 'resps') : answersOf(rec.filtered_resps, at, 'filtered_resps');
    const question = promptOf(rec, at);
    const target = textField(rec.target, { ...at, field: 'target' }, 'the target');
    const named = Array.isArray(rec.metrics) ? rec.metrics.filter((m): m is string => typeof m === 'string') : null;
    const scores: Record<string, ForeignScore> = {};
    for (const [k, v] of Object.entries(rec)) {
      if (NOT_METRICS.has(k) || (named && !named.includes(k))) continue;
      const s = scoreValue(v);
      if (s !== undefined) scores[k] = s;
    }
    const tc = Array.isArray(rec.token_counts) && isObj(rec.token_counts[0]) ? rec.token_counts[0] : undefined;
    const usage = tc ? { usage: { promptTokens: numberOrNull(tc.input_tokens), completionTokens: numberOrNull(tc.output_tokens) } } : {};
    const hint = hintOf(rec.doc);
    const perSample = sampleHints(rec.doc);
    if (answers.length === 0) {
      items.push({ at, id, sample: 0, question, answer: null, error: 'no answer in the log', target, scores, ...(hint ? { hint } : {}) });
      return;
    }
    answers.forEach((answer, k) => {
      const own = perSample?.[k];
      items.push({
        at, id, sample: own?.sample ?? k, question, answer: own?.error ? null : answer, error: own?.error ?? null, target,
        scores: own ? own.scores : scores,
        ...(k === 0 ? usage : {}),
        ...(hint ? { hint: { ...hint, sample: own?.sample ?? k } } : {}),
      });
    });
  });
  if (!harness) throw foreignError({ file, line: 1 }, 'the file holds no samples.');
  const task = taskOfSamplesFile(file);
  const results = options.results;
  if (!results && !options.model) warnings.push(`${file}: no results JSON given beside the samples, so the model and its settings are unknown; name the model.`);
  return {
    harness, file, sha256,
    model: options.model ?? results?.model ?? 'unknown model',
    task,
    settings: results?.settings ?? {},
    createdAt: results?.createdAt ?? null,
    items, warnings,
  };
}
