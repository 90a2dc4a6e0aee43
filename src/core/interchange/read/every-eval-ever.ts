/**
 * Every Eval Ever instance-level records (`<uuid>_samples.jsonl`, schema
 * `instance_level_eval.schema.json` 0.3.0 of evaleval/every_eval_ever), with
 * the aggregate record (`<uuid>.json`, `eval.schema.json`) when given for the
 * generation settings. One line per sample and aggregate result: lines of the
 * same `sample_id` (and NeuroEval's `metadata.sample`) are one answer, each
 * line adding the score of its `evaluation_result_id`.
 */
import { parseJsonText } from '../../scoring/io/json-text.ts';
import { decodeUnicode } from '../../text/decode.ts';
import { FOREIGN_LIMITS, describe, flattenSettings, foreignError, idField, isObj, numberOrNull, textField, type ForeignItem, type ForeignLog, type ForeignScore, type ForeignSetting, type NeuroEvalHint } from '../types.ts';

export interface EeeAggregate {
  readonly settings: Record<string, ForeignSetting>;
  readonly createdAt: number | null;
  readonly model: string | null;
}

/** Generation settings and the model of an aggregate record. */
export function readEeeAggregate(bytes: Uint8Array, file: string): EeeAggregate {
  const v = parseJsonText(decodeUnicode(bytes, file), file);
  if (!isObj(v) || !Array.isArray(v.evaluation_results)) throw foreignError({ file, field: 'evaluation_results' }, 'expected an Every Eval Ever aggregate record.');
  const settings: Record<string, ForeignSetting> = {};
  for (const r of v.evaluation_results) {
    if (isObj(r) && isObj(r.generation_config)) Object.assign(settings, flattenSettings(r.generation_config.generation_args));
  }
  if (isObj(v.eval_library)) Object.assign(settings, flattenSettings(v.eval_library, 'eval_library'));
  const t = typeof v.retrieved_timestamp === 'string' ? Number(v.retrieved_timestamp) : NaN;
  const model = isObj(v.model_info) && typeof v.model_info.id === 'string' ? v.model_info.id : null;
  return { settings, createdAt: Number.isFinite(t) ? Math.round(t * 1000) : null, model };
}

/** True when a parsed line looks like an instance-level record. */
export function isEeeInstance(v: unknown): boolean {
  return isObj(v) && typeof v.schema_version === 'string' && 'sample_id' in v && 'interaction_type' in v && isObj(v.evaluation);
}

function hintOf(meta: unknown, sample: number): NeuroEvalHint | undefined {
  if (!isObj(meta) || typeof meta.neuroeval_case_id !== 'string' || typeof meta.neuroeval_question_id !== 'string') return undefined;
  return { caseId: meta.neuroeval_case_id, questionId: meta.neuroeval_question_id, ...(typeof meta.neuroeval_variant === 'string' ? { variant: meta.neuroeval_variant } : {}), sample };
}

/** The answer of a multi-turn record: its last assistant turn. */
function lastAssistant(messages: unknown, at: { file: string; line: number }): string | null {
  if (!Array.isArray(messages)) throw foreignError({ ...at, field: 'messages' }, `expected a list of turns, found ${describe(messages)}.`);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isObj(m) && m.role === 'assistant') return textField(m.content, { ...at, field: `messages[${i}].content` }, 'the turn');
  }
  return null;
}

/**
 * Reads an instance-level JSONL file. Refuses, naming the file, line and
 * field: a line that is not an object, missing required fields, wrong types,
 * fields past the size limits, two models in one file.
 */
export function readEeeInstances(bytes: Uint8Array, file: string, sha256: string, options: { aggregate?: EeeAggregate } = {}): ForeignLog {
  const text = decodeUnicode(bytes, file);
  const byKey = new Map<string, { item: ForeignItem; scores: Record<string, ForeignScore> }>();
  let model: string | null = null;
  let task: string | null = null;
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const at = { file, line };
    const rec = parseJsonText(raw, file, line);
    if (!isObj(rec)) throw foreignError(at, 'expected a JSON object (one instance record per line).');
    for (const f of ['sample_id', 'model_id', 'evaluation_name', 'interaction_type', 'input', 'evaluation']) {
      if (!(f in rec)) throw foreignError({ ...at, field: f }, 'missing: required by the instance-level schema.');
    }
    const modelId = textField(rec.model_id, { ...at, field: 'model_id' }, 'the model id', FOREIGN_LIMITS.maxIdChars);
    if (model !== null && modelId !== model) throw foreignError({ ...at, field: 'model_id' }, `"${modelId}" differs from "${model}" on an earlier line: import one model's records at a time.`);
    model = modelId;
    task ??= textField(rec.evaluation_name, { ...at, field: 'evaluation_name' }, 'the evaluation name');
    const id = idField(rec.sample_id, { ...at, field: 'sample_id' });
    if (!isObj(rec.input)) throw foreignError({ ...at, field: 'input' }, `expected an object with raw and reference, found ${describe(rec.input)}.`);
    const question = textField(rec.input.raw, { ...at, field: 'input.raw' }, 'the input');
    const reference = rec.input.reference;
    if (!Array.isArray(reference)) throw foreignError({ ...at, field: 'input.reference' }, `expected a list of references, found ${describe(reference)}.`);
    const target = reference.map((r, k) => textField(r, { ...at, field: `input.reference[${k}]` }, 'the reference') ?? '').join('\n');
    const evaluation = rec.evaluation;
    if (!isObj(evaluation) || typeof evaluation.score !== 'number' || !Number.isFinite(evaluation.score)) throw foreignError({ ...at, field: 'evaluation.score' }, `expected a number, found ${describe(isObj(evaluation) ? evaluation.score : evaluation)}.`);
    const meta = isObj(rec.metadata) ? rec.metadata : {};
    const sample = typeof meta.neuroeval_sample === 'string' && /^\d+$/.test(meta.neuroeval_sample) ? Number(meta.neuroeval_sample) : 0;
    let answer: string | null;
    if (rec.interaction_type === 'single_turn') {
      const output = rec.output;
      if (!isObj(output) || !Array.isArray(output.raw)) throw foreignError({ ...at, field: 'output.raw' }, `expected a list of responses, found ${describe(isObj(output) ? output.raw : output)}.`);
      answer = output.raw.length ? textField(output.raw[Math.min(sample, output.raw.length - 1)], { ...at, field: 'output.raw' }, 'the response') : null;
    } else answer = lastAssistant(rec.messages, at);
    const error = rec.error === undefined || rec.error === null ? null : textField(rec.error, { ...at, field: 'error' }, 'the error');
    const metric = typeof rec.evaluation_result_id === 'string' ? rec.evaluation_result_id : String(task);
    const key = `${id}\u0000${sample}`;
    const existing = byKey.get(key);
    if (existing) {
      if (metric in existing.scores) throw foreignError({ ...at, field: 'evaluation_result_id' }, `sample "${id}" has a second record for "${metric}" (first at line ${existing.item.at.line}).`);
      existing.scores[metric] = evaluation.score;
      return;
    }
    if (byKey.size >= FOREIGN_LIMITS.maxItems) throw foreignError(at, `more than ${FOREIGN_LIMITS.maxItems.toLocaleString('en')} samples in one file.`);
    const tu = isObj(rec.token_usage) ? rec.token_usage : undefined;
    const perf = isObj(rec.performance) ? rec.performance : undefined;
    const hint = hintOf(meta, sample);
    // NeuroEval writes an answer no metric decided with a stand-in score of 0 and says so: it is not a score.
    const scores: Record<string, ForeignScore> = typeof meta.neuroeval_not_scorable === 'string' || (error && typeof meta.neuroeval_case_id === 'string') ? {} : { [metric]: evaluation.score };
    byKey.set(key, {
      scores,
      item: {
        at, id, sample, question, answer: error ? null : answer, error: error ?? (answer === null ? 'no response' : null), target, scores,
        ...(tu ? { usage: { promptTokens: numberOrNull(tu.input_tokens), completionTokens: numberOrNull(tu.output_tokens) } } : {}),
        ...(perf && numberOrNull(perf.latency_ms) !== null ? { latencyMs: numberOrNull(perf.latency_ms) } : {}),
        ...(hint ? { hint } : {}),
      },
    });
  });
  if (model === null) throw foreignError({ file, line: 1 }, 'the file holds no instance records.');
  return {
    harness: 'every-eval-ever', file, sha256, model, task,
    settings: options.aggregate?.settings ?? {},
    createdAt: options.aggregate?.createdAt ?? null,
    items: [...byKey.values()].map((v) => v.item),
    warnings: [],
  };
}
