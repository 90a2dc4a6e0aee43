/**
 * Run export: one JSON file holding a run, its provenance, every stored
 * response and (optionally) the cases it ran on, so a run can be scored,
 * shared or converted outside the browser (`neuroeval score`, `neuroeval export`).
 *
 *   { format: "neuroeval-run", version: 3, exportedAt?, run, provenance, responses, reviews?, cases? }
 *
 * `run` is the stored `RunRecord` (with its `config`) without its
 * `provenance`, which sits at the top level; each response carries `caseId`
 * and `questionId`. Version 1 (before database schema v3) kept the config in
 * `provenance.config` and responses without case and question ids; it is
 * still read (runner/legacy.ts). Version 3 adds `reviews`: the run's clinician
 * reviews as stored (verdict, reasons, the reviewer's pseudonym, the audit
 * trail in `previous`), each naming the answer it reviews by that answer's
 * `id` in `responses`; versions 1 and 2 are read with no reviews. No API key
 * is ever written or read back. Cases
 * carry ground truth (`question.reference.labels`) and image references by
 * hash, never image bytes. Changing this shape needs a new `version` and a
 * reader for the old one.
 */
import type { BenchCase } from '../../bundle/types.ts';
import { legacyItemKeyParts, splitLegacyProvenance } from '../../runner/legacy.ts';
import type { ResponseUsage, RunStatus, ResponseRecord } from '../../model/answer.ts';
import type { ReviewRecord, ReviewState } from '../../model/review.ts';
import type { RunRecord } from '../../runner/records.ts';
import { InvalidInputError } from '../../errors.ts';
import type { RunConfig } from '../../runner/config.ts';
import { PROVENANCE_SCHEMA, type Provenance } from '../../runner/provenance.ts';
import { withoutSecrets } from '../../runner/secrets.ts';
import { parseJsonText } from './json-text.ts';

const RUN_EXPORT_FORMAT = 'neuroeval-run';
const RUN_EXPORT_VERSION = 3;

export interface RunExport {
  readonly format: typeof RUN_EXPORT_FORMAT;
  readonly version: typeof RUN_EXPORT_VERSION;
  /** When the file was written (ms since the epoch). */
  readonly exportedAt?: number;
  /** The run record without its provenance; `config` is `null` when the file held none. */
  readonly run: Omit<RunRecord, 'provenance'>;
  /** `null` when the file held none (a hand-made export): it can be scored, not imported. */
  readonly provenance: Provenance | null;
  readonly responses: readonly ResponseRecord[];
  /** The run's reviews as stored; absent in files before version 3 and in exports made without them. */
  readonly reviews?: readonly ReviewRecord[];
  readonly cases?: readonly BenchCase[];
}

/** Builds an export from stored records; any secret an old record still held is left out. */
export function toRunExport(
  run: RunRecord,
  responses: readonly ResponseRecord[],
  cases?: readonly BenchCase[],
  options: { exportedAt?: number; reviews?: readonly ReviewRecord[] } = {},
): RunExport {
  const { provenance, ...rest } = withoutSecrets(run);
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    ...(options.exportedAt !== undefined ? { exportedAt: options.exportedAt } : {}),
    run: rest,
    provenance: provenance ?? null,
    responses,
    ...(options.reviews ? { reviews: options.reviews } : {}),
    ...(cases ? { cases } : {}),
  };
}

/** The export as file text (pretty-printed JSON, newline terminated). */
export function serializeRunExport(e: RunExport): string {
  return `${JSON.stringify(e, null, 2)}\n`;
}

const RUN_STATUSES: ReadonlySet<unknown> = new Set<RunStatus>(['planned', 'running', 'paused', 'done', 'failed', 'cancelled']);

/**
 * The stored `RunRecord` of an export, provenance put back. A parsed export
 * keeps the run's fields as its file had them (scoring needs only the id), so
 * the fields a stored run needs are checked here.
 * @throws InvalidInputError naming the first missing or wrong field.
 */
export function runRecordOf(e: RunExport, file = 'run export'): RunRecord {
  if (!e.provenance) {
    throw new InvalidInputError(`${file}: provenance: missing, so the run cannot be stored here; only runs exported by NeuroEval can be imported.`, { file, field: 'provenance' });
  }
  const run: Readonly<Record<string, unknown>> = e.run;
  need(file, 'run.name', run.name, isString, 'a string');
  need(file, 'run.benchmarkId', run.benchmarkId, isString, 'a string');
  need(file, 'run.status', run.status, (v): v is RunStatus => RUN_STATUSES.has(v), 'a run status');
  need(file, 'run.createdAt', run.createdAt, isNumber, 'a number');
  need(file, 'run.updatedAt', run.updatedAt, isNumber, 'a number');
  const plan = need(file, 'run.plan', run.plan, isObj, 'an object');
  for (const k of ['cases', 'models', 'variants', 'samples', 'items']) need(file, `run.plan.${k}`, plan[k], isNumber, 'a number');
  return { ...e.run, provenance: e.provenance };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when parsed JSON looks like a run export (used to tell it from other inputs). */
export function isRunExport(v: unknown): boolean {
  return isObj(v) && v.format === RUN_EXPORT_FORMAT;
}

function fail(file: string, field: string, message: string): never {
  throw new InvalidInputError(`${file}: ${field}: ${message}`, { file, field });
}

function need<T>(file: string, field: string, v: unknown, ok: (v: unknown) => v is T, what: string): T {
  if (!ok(v)) fail(file, field, `expected ${what}, found ${v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 40)}`);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isNullableNumber = (v: unknown): v is number | null => v === null || isNumber(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isObjOrNull = (v: unknown): v is Obj | null => v === null || isObj(v);

/** Checks a file's provenance (as `buildProvenance` writes it), naming the first field that is wrong. */
function provenanceOf(v: unknown, file: string, at: string): Provenance {
  const p = need(file, at, v, isObj, 'an object');
  if (p.schema !== PROVENANCE_SCHEMA) fail(file, `${at}.schema`, `expected ${PROVENANCE_SCHEMA}, found ${JSON.stringify(p.schema) ?? 'nothing'}`);
  const app = need(file, `${at}.app`, p.app, isObj, 'an object');
  need(file, `${at}.app.version`, app.version, isString, 'a string');
  need(file, `${at}.app.commit`, app.commit, isString, 'a string');
  need(file, `${at}.runtimes`, p.runtimes, isObj, 'an object');
  const env = need(file, `${at}.environment`, p.environment, isObj, 'an object');
  need(file, `${at}.environment.userAgent`, env.userAgent, isString, 'a string');
  need(file, `${at}.environment.crossOriginIsolated`, env.crossOriginIsolated, isBoolean, 'true or false');
  need(file, `${at}.environment.wasmThreads`, env.wasmThreads, isNullableNumber, 'a number or null');
  need(file, `${at}.environment.adapter`, env.adapter, isObjOrNull, 'an object or null');
  need(file, `${at}.models`, p.models, isArray, 'an array').forEach((m, i) => {
    const model = need(file, `${at}.models[${i}]`, m, isObj, 'an object');
    need(file, `${at}.models[${i}].id`, model.id, isString, 'a string');
    need(file, `${at}.models[${i}].runtime`, model.runtime, isString, 'a string');
    need(file, `${at}.models[${i}].files`, model.files, isArray, 'an array');
    need(file, `${at}.models[${i}].filesHash`, model.filesHash, isString, 'a string');
  });
  need(file, `${at}.engines`, p.engines, isObj, 'an object');
  const protocol = need(file, `${at}.protocol`, p.protocol, isObj, 'an object');
  need(file, `${at}.protocol.id`, protocol.id, isString, 'a string');
  need(file, `${at}.protocol.version`, protocol.version, isString, 'a string');
  need(file, `${at}.protocol.templateHashes`, protocol.templateHashes, isObj, 'an object');
  need(file, `${at}.sampling`, p.sampling, isObj, 'an object');
  need(file, `${at}.samples`, p.samples, isNumber, 'a number');
  need(file, `${at}.variants`, p.variants, isStringArray, 'an array of strings');
  const benchmark = need(file, `${at}.benchmark`, p.benchmark, isObj, 'an object');
  need(file, `${at}.benchmark.id`, benchmark.id, isString, 'a string');
  need(file, `${at}.benchmark.contentHash`, benchmark.contentHash, isString, 'a string');
  need(file, `${at}.selection`, p.selection, isObjOrNull, 'an object or null');
  need(file, `${at}.startedAt`, p.startedAt, isNullableNumber, 'a number or null');
  need(file, `${at}.endedAt`, p.endedAt, isNullableNumber, 'a number or null');
  if (p.merged !== undefined) need(file, `${at}.merged`, p.merged, isArray, 'an array');
  // Checked field by field above; a secret (never written by NeuroEval) is dropped in case a file holds one.
  return withoutSecrets(p) as unknown as Provenance;
}

type FieldCheck = readonly [field: string, ok: (v: unknown) => boolean, what: string];
const ENGINE_FIELDS: Readonly<Record<string, readonly FieldCheck[]>> = {
  transformers: [['location', isString, 'a string'], ['device', (v) => v === 'webgpu' || v === 'wasm' || v === 'cpu', '"webgpu", "wasm" or "cpu"'], ['files', isArray, 'an array']],
  webllm: [['entryId', isString, 'a string'], ['task', isString, 'a string'], ['files', isArray, 'an array']],
  openai: [['endpointId', isString, 'a string'], ['baseUrl', isString, 'a string'], ['model', isString, 'a string'], ['concurrency', isNumber, 'a number']],
};

/** Checks a file's run configuration, naming the first field that is wrong; API keys are dropped. */
function runConfigOf(v: unknown, file: string, at: string): RunConfig {
  const c = need(file, at, withoutSecrets(v), isObj, 'an object');
  const spec = need(file, `${at}.spec`, c.spec, isObj, 'an object');
  need(file, `${at}.spec.benchmarkId`, spec.benchmarkId, isString, 'a string');
  need(file, `${at}.spec.models`, spec.models, isArray, 'an array');
  need(file, `${at}.spec.sampling`, spec.sampling, isObj, 'an object');
  need(file, `${at}.protocolId`, c.protocolId, isString, 'a string');
  need(file, `${at}.fewShot`, c.fewShot, isBoolean, 'true or false');
  if (c.templates !== undefined) need(file, `${at}.templates`, c.templates, isObj, 'an object');
  if (c.force !== undefined) need(file, `${at}.force`, c.force, isBoolean, 'true or false');
  need(file, `${at}.engines`, c.engines, isArray, 'an array').forEach((e, i) => {
    const where = `${at}.engines[${i}]`;
    const engine = need(file, where, e, isObj, 'an object');
    const fields = ENGINE_FIELDS[String(engine.kind)];
    if (!fields) fail(file, `${where}.kind`, `expected "transformers", "webllm" or "openai", found ${JSON.stringify(engine.kind) ?? 'nothing'}`);
    need(file, `${where}.id`, engine.id, isString, 'a string');
    need(file, `${where}.label`, engine.label, isString, 'a string');
    for (const [field, ok, what] of fields) need(file, `${where}.${field}`, engine[field], (x): x is unknown => ok(x), what);
  });
  // Checked field by field above.
  return c as unknown as RunConfig;
}

function usageOf(v: unknown): ResponseUsage {
  const u = isObj(v) ? v : {};
  const n = (x: unknown) => (isNumber(x) ? x : null);
  const prompt = promptSizeOf(u.prompt);
  return {
    promptTokens: n(u.promptTokens),
    completionTokens: n(u.completionTokens),
    ttftMs: n(u.ttftMs),
    prefillTps: n(u.prefillTps),
    decodeTps: n(u.decodeTps),
    ...(prompt ? { prompt } : {}),
    ...(isNumber(u.batch) && u.batch > 1 ? { batch: u.batch } : {}),
  };
}

/** An answer's prompt size as stored (text and image tokens, tiles per image, reused tokens), or nothing when it is not that shape. */
function promptSizeOf(v: unknown): ResponseUsage['prompt'] | undefined {
  if (!isObj(v) || !isNumber(v.textTokens) || !isNumber(v.imageTokens) || !isNumber(v.reusedTokens) || !isArray(v.images)) return undefined;
  const images = v.images.map((im) => (isObj(im) && isNumber(im.tokens) && (im.tiles === null || isNumber(im.tiles)) ? { tiles: im.tiles as number | null, tokens: im.tokens } : null));
  if (images.some((im) => im === null)) return undefined;
  return { textTokens: v.textTokens, imageTokens: v.imageTokens, reusedTokens: v.reusedTokens, images: images as { tiles: number | null; tokens: number }[] };
}

function responseOf(v: unknown, i: number, file: string, runId: string, version: number): ResponseRecord {
  const at = `responses[${i}]`;
  const r = need(file, at, v, isObj, 'an object');
  const itemKey = need(file, `${at}.itemKey`, r.itemKey, isString, 'a string');
  const modelId = need(file, `${at}.modelId`, r.modelId, isString, 'a string');
  const parseError = r.parseError === undefined ? null : need(file, `${at}.parseError`, r.parseError, isNullableString, 'a string or null');
  const error = r.error === undefined ? undefined : need(file, `${at}.error`, r.error, isNullableString, 'a string or null');
  const sample = r.sample === undefined ? 0 : need(file, `${at}.sample`, r.sample, isNumber, 'a number');
  const latencyMs = r.latencyMs === undefined || r.latencyMs === null ? Number.NaN : need(file, `${at}.latencyMs`, r.latencyMs, isNumber, 'a number');
  const variant = isString(r.variant) ? r.variant : 'none';
  // Version 1 had no case and question ids: derived once from the item key (runner/legacy.ts).
  const ids = version === 1 && (r.caseId === undefined || r.questionId === undefined)
    ? legacyItemKeyParts({ itemKey, modelId, variant, sample })
    : { caseId: need(file, `${at}.caseId`, r.caseId, isString, 'a string'), questionId: need(file, `${at}.questionId`, r.questionId, isString, 'a string') };
  return {
    ...r,
    id: isString(r.id) ? r.id : `${runId}:${itemKey}`,
    runId: isString(r.runId) ? r.runId : runId,
    itemKey,
    caseId: ids.caseId,
    questionId: ids.questionId,
    cacheKey: isString(r.cacheKey) ? r.cacheKey : '',
    modelId,
    variant,
    sample,
    rawText: isString(r.rawText) ? r.rawText : '',
    parsed: r.parsed ?? null,
    parseError,
    usage: usageOf(r.usage),
    latencyMs,
    finishReason: isString(r.finishReason) ? r.finishReason : 'stop',
    createdAt: isNumber(r.createdAt) ? r.createdAt : 0,
    ...(error !== undefined ? { error } : {}),
  };
}

/** The reviewable fields of a review or of one state in its trail, checked field by field. */
function reviewStateOf(r: Obj, file: string, at: string): ReviewState {
  const rubric = r.rubricMet === undefined || r.rubricMet === null ? null : need(file, `${at}.rubricMet`, r.rubricMet, isObj, 'an object');
  if (rubric) for (const [k, v] of Object.entries(rubric)) need(file, `${at}.rubricMet.${k}`, v, isBoolean, 'true or false');
  return {
    verdict: need(file, `${at}.verdict`, r.verdict, isString, 'a string'),
    errorClasses: need(file, `${at}.errorClasses`, r.errorClasses, isStringArray, 'an array of strings'),
    rationaleRating: need(file, `${at}.rationaleRating`, r.rationaleRating ?? null, isNullableNumber, 'a number or null'),
    ...(rubric ? { rubricMet: rubric as Record<string, boolean> } : {}),
    reason: need(file, `${at}.reason`, r.reason ?? '', isString, 'a string'),
    reviewerId: need(file, `${at}.reviewerId`, r.reviewerId, isString, 'a string'),
    createdAt: need(file, `${at}.createdAt`, r.createdAt, isNumber, 'a number'),
  };
}

function reviewOf(v: unknown, at: string, file: string): ReviewRecord {
  const r = need(file, at, v, isObj, 'an object');
  const previous = r.previous === undefined ? [] : need(file, `${at}.previous`, r.previous, isArray, 'an array');
  return {
    ...reviewStateOf(r, file, at),
    id: need(file, `${at}.id`, r.id, isString, 'a string'),
    responseId: need(file, `${at}.responseId`, r.responseId, isString, 'a string'),
    runId: need(file, `${at}.runId`, r.runId, isString, 'a string'),
    previous: previous.map((p, j) => reviewStateOf(need(file, `${at}.previous[${j}]`, p, isObj, 'an object'), file, `${at}.previous[${j}]`)),
  };
}

function caseOf(v: unknown, i: number, file: string): BenchCase {
  const at = `cases[${i}]`;
  const c = need(file, at, v, isObj, 'an object');
  need(file, `${at}.id`, c.id, isString, 'a string');
  need(file, `${at}.questions`, c.questions, Array.isArray, 'an array');
  if (c.images !== undefined) need(file, `${at}.images`, c.images, Array.isArray, 'an array');
  return { taskFamily: 'classification', images: [], ...c } as unknown as BenchCase;
}

/** A run has one answer per item: a second one means a damaged or hand-edited file, whichever is read or stored. */
function noRepeatedItems(responses: readonly ResponseRecord[], file: string): void {
  const firstAt = new Map<string, number>();
  responses.forEach((r, i) => {
    const before = firstAt.get(r.itemKey);
    if (before !== undefined) {
      fail(file, `responses[${i}].itemKey`, `item "${r.itemKey}" (case "${r.caseId}") is answered twice, at responses[${before}] and responses[${i}]; a run has one answer per item, so the file cannot be used as it is.`);
    }
    firstAt.set(r.itemKey, i);
  });
}

/**
 * Reads a run export. Throws {@link InvalidInputError} naming the file and the
 * line (bad JSON) or field (wrong shape); tolerates missing optional response
 * fields (usage, latency, finish reason), which get neutral defaults.
 */
export function parseRunExport(text: string, file = 'run.json'): RunExport {
  const v = parseJsonText(text.replace(/^\uFEFF/, ''), file);
  const root = need(file, '(top level)', v, isObj, 'a JSON object');
  if (root.format !== RUN_EXPORT_FORMAT) fail(file, 'format', `expected "${RUN_EXPORT_FORMAT}", found ${JSON.stringify(root.format) ?? 'nothing'}: this is not a NeuroEval run export`);
  if (root.version !== RUN_EXPORT_VERSION && root.version !== 1 && root.version !== 2) {
    fail(file, 'version', isNumber(root.version) && root.version > RUN_EXPORT_VERSION
      ? `version ${root.version} was written by a newer NeuroEval; this one reads versions 1 to ${RUN_EXPORT_VERSION}`
      : `expected 1 to ${RUN_EXPORT_VERSION}, found ${JSON.stringify(root.version) ?? 'nothing'}`);
  }
  const version = root.version;
  const run = need(file, 'run', root.run, isObj, 'an object');
  const runId = need(file, 'run.id', run.id, isString, 'a string');
  const responses = need(file, 'responses', root.responses, Array.isArray, 'an array').map((r, i) => responseOf(r, i, file, runId, version));
  noRepeatedItems(responses, file);
  const reviews = root.reviews === undefined || root.reviews === null ? undefined : need(file, 'reviews', root.reviews, Array.isArray, 'an array').map((r, i) => reviewOf(r, `reviews[${i}]`, file));
  const cases = root.cases === undefined || root.cases === null ? undefined : need(file, 'cases', root.cases, Array.isArray, 'an array').map((c, i) => caseOf(c, i, file));
  const { provenance: innerProvenance, config: innerConfig, ...runRest } = run;
  const rawProvenance = root.provenance ?? innerProvenance ?? null;
  let config: RunConfig | null;
  let provenance: Provenance | null;
  if (version === 1) {
    // Version 1 kept the configuration (an endpoint perhaps with its API key) inside the provenance.
    const split = splitLegacyProvenance(rawProvenance);
    config = split.config ? runConfigOf(split.config, file, 'provenance.config') : null;
    provenance = split.provenance === null ? null : provenanceOf(split.provenance, file, 'provenance');
  } else {
    config = innerConfig === undefined || innerConfig === null ? null : runConfigOf(innerConfig, file, 'run.config');
    provenance = rawProvenance === null ? null : provenanceOf(rawProvenance, file, 'provenance');
  }
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    ...(isNumber(root.exportedAt) ? { exportedAt: root.exportedAt } : {}),
    // The other run fields are kept as the file has them: scoring needs only the id, an import checks what it stores.
    run: { ...withoutSecrets(runRest), config } as unknown as Omit<RunRecord, 'provenance'>,
    provenance,
    responses,
    ...(reviews ? { reviews } : {}),
    ...(cases ? { cases } : {}),
  };
}
