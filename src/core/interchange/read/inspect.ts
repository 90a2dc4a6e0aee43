/**
 * Inspect AI eval logs: `.json` (one `EvalLog` document) and `.eval` (a ZIP:
 * `header.json`, or `_journal/start.json` while a run is in progress, and one
 * `samples/<id>_epoch_<n>.json` per sample; inspect_ai
 * `log/_recorders/eval.py`). Field names and types follow the pydantic models
 * of `inspect_ai/log/_log.py` (`EvalLog`, `EvalSpec`, `EvalSample`) as
 * published in `_view/inspect-openapi.json`. Long strings a log condensed
 * into `attachment://<hash>` are resolved from the sample's `attachments`.
 */
import { readZip } from '../../bundle/zip-read.ts';
import { InvalidInputError } from '../../errors.ts';
import { parseJsonText } from '../../scoring/io/json-text.ts';
import { decodeUnicode } from '../../text/decode.ts';
import { FOREIGN_LIMITS, describe, flattenSettings, foreignError, idField, isObj, numberOrNull, scoreValue, textField, type ForeignItem, type ForeignLog, type ForeignScore, type ForeignSetting, type NeuroEvalHint } from '../types.ts';

type Obj = Record<string, unknown>;
type At = { file: string; field: string; line?: number };

const ATTACHMENT = 'attachment://';
/** An .eval log holds text: these limits refuse a bomb before it is inflated. */
const EVAL_ZIP_LIMITS = { maxTotalBytes: 2 * 1024 ** 3, maxEntryBytes: 512 * 1024 ** 2, maxEntries: FOREIGN_LIMITS.maxItems + 100 };

/** Text of a message's content: a string, or the text (and reasoning, in `<think>`) of its content parts. */
function contentText(content: unknown, at: At, attachments: Obj): string {
  const resolve = (s: string) => (s.startsWith(ATTACHMENT) && typeof attachments[s.slice(ATTACHMENT.length)] === 'string' ? (attachments[s.slice(ATTACHMENT.length)] as string) : s);
  if (typeof content === 'string') return resolve(content);
  if (!Array.isArray(content)) throw foreignError(at, `expected text or a list of content parts, found ${describe(content)}.`);
  let out = '';
  content.forEach((part, i) => {
    if (!isObj(part)) throw foreignError({ ...at, field: `${at.field}[${i}]` }, `expected a content part, found ${describe(part)}.`);
    if (part.type === 'text') out += resolve(textField(part.text, { ...at, field: `${at.field}[${i}].text` }, 'the text') ?? '');
    else if (part.type === 'reasoning' && typeof part.reasoning === 'string') out += `<think>${resolve(part.reasoning)}</think>`;
  });
  return out;
}

function questionOf(input: unknown, at: At, attachments: Obj): string {
  if (typeof input === 'string') return textField(contentText(input, at, attachments), at, 'the input')!;
  if (!Array.isArray(input)) throw foreignError(at, `expected the input as text or a list of chat messages, found ${describe(input)}.`);
  const parts = input.map((m, i) => {
    const where = { ...at, field: `${at.field}[${i}]` };
    if (!isObj(m)) throw foreignError(where, `expected a chat message, found ${describe(m)}.`);
    return m.role === 'user' ? contentText(m.content, { ...where, field: `${where.field}.content` }, attachments) : '';
  });
  return textField(parts.filter(Boolean).join('\n'), at, 'the input')!;
}

function answerOf(output: unknown, at: At, attachments: Obj): { answer: string | null; error: string | null } {
  if (output === undefined || output === null) return { answer: null, error: 'no output' };
  if (!isObj(output)) throw foreignError(at, `expected the model output, found ${describe(output)}.`);
  const error = typeof output.error === 'string' ? output.error : null;
  const choices = output.choices;
  if (choices !== undefined && !Array.isArray(choices)) throw foreignError({ ...at, field: `${at.field}.choices` }, `expected a list, found ${describe(choices)}.`);
  const first = Array.isArray(choices) ? choices[0] : undefined;
  let answer: string | null = null;
  if (isObj(first) && isObj(first.message)) answer = contentText(first.message.content, { ...at, field: `${at.field}.choices[0].message.content` }, attachments);
  else if (output.completion !== undefined) answer = contentText(output.completion, { ...at, field: `${at.field}.completion` }, attachments);
  return { answer: answer === null ? null : textField(answer, { ...at, field: `${at.field}.completion` }, 'the answer'), error: answer === null ? (error ?? 'no answer in the output') : error };
}

function scoresOf(scores: unknown, at: At): Record<string, ForeignScore> {
  const out: Record<string, ForeignScore> = {};
  if (scores === undefined || scores === null) return out;
  if (!isObj(scores)) throw foreignError(at, `expected scores by scorer name, found ${describe(scores)}.`);
  for (const [name, s] of Object.entries(scores)) {
    if (!isObj(s)) throw foreignError({ ...at, field: `${at.field}.${name}` }, `expected a score, found ${describe(s)}.`);
    const v = s.value;
    if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) if (scoreValue(x) !== undefined) out[`${name}.${k}`] = scoreValue(x)!;
    } else if (scoreValue(v) !== undefined) out[name] = scoreValue(v)!;
    else throw foreignError({ ...at, field: `${at.field}.${name}.value` }, `expected a score value, found ${describe(v)}.`);
  }
  return out;
}

function hintOf(metadata: unknown): NeuroEvalHint | undefined {
  const ne = isObj(metadata) && isObj(metadata.neuroeval) ? metadata.neuroeval : undefined;
  if (!ne || typeof ne.caseId !== 'string' || typeof ne.questionId !== 'string') return undefined;
  return { caseId: ne.caseId, questionId: ne.questionId, ...(typeof ne.variant === 'string' ? { variant: ne.variant } : {}), ...(typeof ne.sample === 'number' ? { sample: ne.sample } : {}) };
}

function sampleItem(s: unknown, at: At): ForeignItem {
  if (!isObj(s)) throw foreignError(at, `expected a sample, found ${describe(s)}.`);
  const attachments = isObj(s.attachments) ? s.attachments : {};
  const f = (field: string): At => ({ ...at, field: at.field ? `${at.field}.${field}` : field });
  const id = idField(s.id, f('id'));
  const epoch = s.epoch === undefined ? 1 : s.epoch;
  if (typeof epoch !== 'number' || !Number.isInteger(epoch) || epoch < 1) throw foreignError(f('epoch'), `expected an epoch (1, 2, …), found ${describe(epoch)}.`);
  const { answer, error } = answerOf(s.output, f('output'), attachments);
  const sampleError = isObj(s.error) && typeof s.error.message === 'string' ? s.error.message : null;
  const target = Array.isArray(s.target) ? s.target.map((t, i) => textField(t, f(`target[${i}]`), 'the target') ?? '').join('\n') : textField(s.target, f('target'), 'the target');
  const output = isObj(s.output) ? s.output : {};
  const usage = isObj(output.usage) ? { usage: { promptTokens: numberOrNull(output.usage.input_tokens), completionTokens: numberOrNull(output.usage.output_tokens) } } : {};
  const time = numberOrNull(output.time);
  const hint = hintOf(s.metadata);
  return {
    at: { file: at.file, ...(at.line !== undefined ? { line: at.line } : {}), field: at.field || `sample ${id}` },
    id,
    sample: epoch - 1,
    question: s.input === undefined ? null : questionOf(s.input, f('input'), attachments),
    answer: sampleError ? null : answer,
    error: sampleError ?? error,
    target,
    scores: scoresOf(s.scores, f('scores')),
    ...usage,
    ...(time !== null ? { latencyMs: time * 1000 } : {}),
    ...(hint ? { hint } : {}),
  };
}

/** Model, task, settings and time of the log's `eval` (an `EvalSpec`). */
function specOf(log: Obj, file: string, field: string): { model: string; task: string | null; settings: Record<string, ForeignSetting>; createdAt: number | null } {
  const spec = log.eval;
  if (!isObj(spec)) throw foreignError({ file, field: `${field}eval` }, `missing or not an object (found ${describe(spec)}): this is not an Inspect AI eval log.`);
  if (typeof spec.model !== 'string' || !spec.model) throw foreignError({ file, field: `${field}eval.model` }, `expected the model's name, found ${describe(spec.model)}.`);
  const settings: Record<string, ForeignSetting> = { ...flattenSettings(spec.model_generate_config), ...flattenSettings(spec.model_args, 'model_args'), ...flattenSettings(spec.task_args, 'task_args') };
  const config = isObj(spec.config) ? spec.config : {};
  if (typeof config.epochs === 'number') settings.epochs = config.epochs;
  if (isObj(spec.packages) && typeof spec.packages.inspect_ai === 'string') settings.inspect_ai = spec.packages.inspect_ai;
  const created = typeof spec.created === 'string' ? Date.parse(spec.created) : NaN;
  return { model: spec.model, task: typeof spec.task === 'string' ? spec.task : null, settings, createdAt: Number.isFinite(created) ? created : null };
}

/** True for the start of a JSON eval log (an object with `eval` and `version`). */
export function isInspectLog(v: unknown): boolean {
  return isObj(v) && isObj(v.eval) && typeof v.version === 'number' && ('samples' in v || 'plan' in v);
}

function readJsonLog(bytes: Uint8Array, file: string, sha256: string): ForeignLog {
  const log = parseJsonText(decodeUnicode(bytes, file), file);
  if (!isObj(log)) throw foreignError({ file, line: 1 }, 'expected an Inspect AI eval log (a JSON object).');
  const spec = specOf(log, file, '');
  if (log.samples === undefined || log.samples === null) throw foreignError({ file, field: 'samples' }, 'the log holds no samples (written with --no-log-samples?): there are no answers to import.');
  if (!Array.isArray(log.samples)) throw foreignError({ file, field: 'samples' }, `expected a list of samples, found ${describe(log.samples)}.`);
  if (log.samples.length > FOREIGN_LIMITS.maxItems) throw foreignError({ file, field: 'samples' }, `${log.samples.length} samples, more than ${FOREIGN_LIMITS.maxItems.toLocaleString('en')}.`);
  const items = log.samples.map((s, i) => sampleItem(s, { file, field: `samples[${i}]` }));
  return { harness: 'inspect-ai', file, sha256, ...spec, items, warnings: [] };
}

function readEvalZip(bytes: Uint8Array, file: string, sha256: string): ForeignLog {
  let entries: Map<string, Uint8Array>;
  try {
    entries = readZip(bytes, file, EVAL_ZIP_LIMITS);
  } catch (error) {
    throw new InvalidInputError(`${file}: not a readable Inspect AI .eval log (${error instanceof Error ? error.message : String(error)}).`, { file });
  }
  const json = (name: string): unknown => parseJsonText(decodeUnicode(entries.get(name)!, `${file}/${name}`), `${file}/${name}`);
  const headerName = entries.has('header.json') ? 'header.json' : entries.has('_journal/start.json') ? '_journal/start.json' : null;
  if (!headerName) throw foreignError({ file, field: 'header.json' }, 'neither header.json nor _journal/start.json is in the archive: this is not an Inspect AI .eval log.');
  const header = json(headerName);
  if (!isObj(header)) throw foreignError({ file, field: headerName }, 'expected a JSON object.');
  const spec = specOf(header, file, `${headerName}: `);
  const warnings = headerName === 'header.json' ? [] : [`${file}: the log has no header.json (the run was still going, or stopped): its samples so far are read.`];
  const names = [...entries.keys()].filter((n) => n.startsWith('samples/') && n.endsWith('.json')).sort();
  if (names.length === 0) throw foreignError({ file, field: 'samples/' }, 'the log holds no samples: there are no answers to import.');
  const items = names.map((n) => sampleItem(json(n), { file: `${file}/${n}`, field: '' }));
  return { harness: 'inspect-ai', file, sha256, ...spec, items, warnings };
}

/**
 * Reads an Inspect AI log, `.eval` (ZIP, told by its first bytes) or `.json`.
 * @throws InvalidInputError naming the file (and entry) and the field.
 */
export function readInspectLog(bytes: Uint8Array, file: string, sha256: string): ForeignLog {
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
  return zip ? readEvalZip(bytes, file, sha256) : readJsonLog(bytes, file, sha256);
}
