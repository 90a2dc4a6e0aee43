/**
 * Run export: one JSON file holding a run, its provenance, every stored
 * response and (optionally) the cases it ran on, so a run can be scored,
 * shared or converted outside the browser (`neuroeval score`, `neuroeval export`).
 *
 *   { format: "neuroeval-run", version: 1, exportedAt?, run, provenance, responses, cases? }
 *
 * `run` is the stored `RunRecord` without its `provenance`, which sits at the
 * top level. Cases carry ground truth (`question.reference.labels`) and image
 * references by hash, never image bytes. Changing this shape needs a new
 * `version` and a reader for the old one.
 */
import type { BenchCase } from '../../bundle/types.ts';
import type { ResponseUsage, RunRecord } from '../../db/types.ts';
import { InvalidInputError } from '../../errors.ts';
import type { RunResponse } from '../../runner/types.ts';
import { parseJsonText } from './json-text.ts';

export const RUN_EXPORT_FORMAT = 'neuroeval-run';
export const RUN_EXPORT_VERSION = 1;

export interface RunExport {
  readonly format: typeof RUN_EXPORT_FORMAT;
  readonly version: typeof RUN_EXPORT_VERSION;
  /** When the file was written (ms since the epoch). */
  readonly exportedAt?: number;
  readonly run: Omit<RunRecord, 'provenance'>;
  readonly provenance: unknown;
  readonly responses: readonly RunResponse[];
  readonly cases?: readonly BenchCase[];
}

/** Builds an export from stored records. */
export function toRunExport(run: RunRecord, responses: readonly RunResponse[], cases?: readonly BenchCase[], options: { exportedAt?: number } = {}): RunExport {
  const { provenance, ...rest } = run;
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    ...(options.exportedAt !== undefined ? { exportedAt: options.exportedAt } : {}),
    run: rest,
    provenance: provenance ?? null,
    responses,
    ...(cases ? { cases } : {}),
  };
}

/** The export as file text (pretty-printed JSON, newline terminated). */
export function serializeRunExport(e: RunExport): string {
  return `${JSON.stringify(e, null, 2)}\n`;
}

/** The stored `RunRecord` of an export, provenance put back. */
export function runRecordOf(e: RunExport): RunRecord {
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

function usageOf(v: unknown): ResponseUsage {
  const u = isObj(v) ? v : {};
  const n = (x: unknown) => (isNumber(x) ? x : null);
  return { promptTokens: n(u.promptTokens), completionTokens: n(u.completionTokens), ttftMs: n(u.ttftMs), prefillTps: n(u.prefillTps), decodeTps: n(u.decodeTps) };
}

function responseOf(v: unknown, i: number, file: string, runId: string): RunResponse {
  const at = `responses[${i}]`;
  const r = need(file, at, v, isObj, 'an object');
  const itemKey = need(file, `${at}.itemKey`, r.itemKey, isString, 'a string');
  const modelId = need(file, `${at}.modelId`, r.modelId, isString, 'a string');
  const parseError = r.parseError === undefined ? null : need(file, `${at}.parseError`, r.parseError, isNullableString, 'a string or null');
  const error = r.error === undefined ? undefined : need(file, `${at}.error`, r.error, isNullableString, 'a string or null');
  const sample = r.sample === undefined ? 0 : need(file, `${at}.sample`, r.sample, isNumber, 'a number');
  const latencyMs = r.latencyMs === undefined || r.latencyMs === null ? Number.NaN : need(file, `${at}.latencyMs`, r.latencyMs, isNumber, 'a number');
  return {
    ...r,
    id: isString(r.id) ? r.id : `${runId}:${itemKey}`,
    runId: isString(r.runId) ? r.runId : runId,
    itemKey,
    cacheKey: isString(r.cacheKey) ? r.cacheKey : '',
    modelId,
    variant: isString(r.variant) ? r.variant : 'none',
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

function caseOf(v: unknown, i: number, file: string): BenchCase {
  const at = `cases[${i}]`;
  const c = need(file, at, v, isObj, 'an object');
  need(file, `${at}.id`, c.id, isString, 'a string');
  need(file, `${at}.questions`, c.questions, Array.isArray, 'an array');
  if (c.images !== undefined) need(file, `${at}.images`, c.images, Array.isArray, 'an array');
  return { taskFamily: 'classification', images: [], ...c } as unknown as BenchCase;
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
  if (root.version !== RUN_EXPORT_VERSION) {
    fail(file, 'version', isNumber(root.version) && root.version > RUN_EXPORT_VERSION
      ? `version ${root.version} was written by a newer NeuroEval; this one reads version ${RUN_EXPORT_VERSION}`
      : `expected ${RUN_EXPORT_VERSION}, found ${JSON.stringify(root.version) ?? 'nothing'}`);
  }
  const run = need(file, 'run', root.run, isObj, 'an object');
  const runId = need(file, 'run.id', run.id, isString, 'a string');
  const responses = need(file, 'responses', root.responses, Array.isArray, 'an array').map((r, i) => responseOf(r, i, file, runId));
  const cases = root.cases === undefined || root.cases === null ? undefined : need(file, 'cases', root.cases, Array.isArray, 'an array').map((c, i) => caseOf(c, i, file));
  const { provenance: innerProvenance, ...runRest } = run;
  return {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    ...(isNumber(root.exportedAt) ? { exportedAt: root.exportedAt } : {}),
    run: runRest as unknown as Omit<RunRecord, 'provenance'>,
    provenance: root.provenance ?? innerProvenance ?? null,
    responses,
    ...(cases ? { cases } : {}),
  };
}
