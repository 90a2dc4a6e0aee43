/**
 * The NeuroVLM-Bench harness's result layout (ChatMED/neurovlm-bench
 * `run_async.py`, read by `evaluate_detailed.py`): one JSON object per line,
 *
 *   { experiment_id, timestamp,
 *     input:  { image_path, model_requested, metadata: { dataset?, class, subclass, modality,
 *               modality_subtype, axial_plane } },            ← ground truth; "" = unknown
 *     output: { status: "success" | "error", parsed_response, error },
 *     api_response: { model, prompt_tokens, completion_tokens, latency_ms? } | null }
 *
 * `parsed_response` is the answer object, or `{ error, raw_response }` when the
 * harness could not parse the model's text. Reading is tolerant of missing
 * fields (they become "unknown"); a line that is not a JSON object is an error
 * naming the line. Writing turns a local run into the same layout so results
 * produced by the harness and by NeuroEval can be scored side by side.
 */
import type { BenchCase } from '../../bundle/types.ts';
import type { RunRecord } from '../../runner/records.ts';
import type { JsonOutputRecord } from '../../protocols/json-output.ts';
import { InvalidInputError } from '../../errors.ts';
import { findQuestion, goldOf, outcomeOf, type ScorableResponse } from '../neurovlm/items.ts';
import type { NeuroVlmScoredField } from '../neurovlm/normalise.ts';
import type { NeuroVlmAnswerOutcome, NeuroVlmItem } from '../neurovlm/types.ts';
import { pyFileLines } from '../../python/values.ts';
import { parseJsonText } from './json-text.ts';

/** Harness metadata key of each scored field's ground truth. */
const NEUROVLM_GT_KEYS: Readonly<Record<NeuroVlmScoredField, string>> = {
  diagnosis_name: 'class',
  diagnosis_detailed: 'subclass',
  modality: 'modality',
  specialized_sequence: 'modality_subtype',
  plane: 'axial_plane',
};

/** One harness line, as far as NeuroEval reads and writes it. */
interface NeuroVlmJsonlRecord {
  experiment_id: string;
  timestamp?: string;
  input: {
    image_path: string;
    model_requested: string;
    system_prompt_type?: string;
    metadata: Record<string, string>;
  };
  output: { status: 'success' | 'error'; parsed_response: unknown; error: string | null };
  api_response: {
    id?: string;
    model: string;
    prompt_tokens: number | null;
    completion_tokens: number | null;
    total_tokens: number | null;
    latency_ms: number | null;
  } | null;
  /** NeuroEval's own keys (the harness ignores unknown keys): where the line came from. */
  neuroeval?: { runId: string; itemKey: string; variant: string; sample: number; jsonOutput?: JsonOutputRecord | null };
}

/** A scorer item read from a line, with the line it came from. */
interface NeuroVlmJsonlItem extends NeuroVlmItem {
  readonly line: number;
  /** `input.metadata.dataset`, for per-dataset breakdowns. */
  readonly dataset?: string;
}

interface NeuroVlmJsonlRead {
  readonly items: NeuroVlmJsonlItem[];
  /** Tolerated problems (a missing section), each naming its line. */
  readonly warnings: string[];
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** A ground-truth cell: empty, missing or Python's None/NaN = not scorable. */
function goldCell(v: unknown): string | null {
  const s = str(v)?.trim();
  return s ? s : null;
}

/** `parse_json_response` reports failures as `{ error, raw_response }` instead of raising. */
function isHarnessParseFailure(p: Obj): boolean {
  return typeof p.error === 'string' && 'raw_response' in p && !('diagnosis_name' in p);
}

function outcomeOfLine(output: Obj | undefined): NeuroVlmAnswerOutcome {
  const status = str(output?.status);
  const parsed = output?.parsed_response;
  if (status !== undefined && status !== 'success') return { kind: 'call-error', error: str(output?.error) ?? `status "${status}"` };
  if (parsed === undefined || parsed === null) {
    // No status and no answer: nothing was produced. "success" with no answer: the harness's own `or {}`.
    return status === undefined ? { kind: 'call-error', error: str(output?.error) ?? 'no output' } : { kind: 'parse-error', error: 'no parsed_response' };
  }
  const p = obj(parsed);
  // The harness prefixes its parser's message; drop the prefix so both sources read alike.
  if (p && isHarnessParseFailure(p)) return { kind: 'parse-error', error: (str(p.error) ?? '').replace(/^JSON parsing failed: /, '') || 'JSON parsing failed' };
  return { kind: 'parsed', value: parsed };
}

/** Reads one harness line into a scorer item. */
function itemOfLine(rec: Obj, line: number, warnings: string[], file: string): NeuroVlmJsonlItem {
  const input = obj(rec.input);
  const output = obj(rec.output);
  const api = obj(rec.api_response);
  const meta = obj(input?.metadata);
  if (!input) warnings.push(`${file}:${line}: no "input": ground truth and model unknown.`);
  else if (!meta) warnings.push(`${file}:${line}: no "input.metadata": every field is not scorable.`);
  if (!output) warnings.push(`${file}:${line}: no "output": counted as a failed call.`);
  const gold: Partial<Record<NeuroVlmScoredField, string | null>> = {};
  for (const [field, key] of Object.entries(NEUROVLM_GT_KEYS) as [NeuroVlmScoredField, string][]) gold[field] = goldCell(meta?.[key]);
  const ne = obj(rec.neuroeval);
  // Some pipelines store seconds (evaluate_detailed.py reads latency_s as a fallback).
  const latencyS = num(api?.latency_s);
  const latencyMs = num(api?.latency_ms) ?? (latencyS === null ? null : latencyS * 1000);
  const dataset = str(meta?.dataset);
  return {
    id: str(rec.experiment_id) ?? str(input?.image_path) ?? `line ${line}`,
    modelId: str(input?.model_requested) ?? str(api?.model) ?? 'unknown model',
    ...(str(ne?.variant) ? { variant: str(ne?.variant)! } : {}),
    gold,
    answer: outcomeOfLine(output),
    latencyMs,
    usage: { promptTokens: num(api?.prompt_tokens), completionTokens: num(api?.completion_tokens) },
    line,
    ...(dataset ? { dataset } : {}),
  };
}

/**
 * Reads a harness results file for NeuroEval's own analysis. Lines end as
 * Python's text mode ends them (\n, \r\n or a lone \r), so line numbers
 * match the benchmark's evaluator; blank lines are skipped. A line that is
 * not a JSON object is left out with a warning naming it (the evaluator keeps
 * a placeholder for it and scores the rest); a file with no readable line at
 * all throws {@link InvalidInputError} naming the first bad line.
 */
export function readNeuroVlmJsonl(text: string, file = 'results.jsonl'): NeuroVlmJsonlRead {
  const items: NeuroVlmJsonlItem[] = [];
  const warnings: string[] = [];
  let firstError: InvalidInputError | undefined;
  pyFileLines(text.replace(/^\uFEFF/, '')).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    try {
      const rec = obj(parseJsonText(raw, file, line, 'numbers'));
      if (!rec) throw new InvalidInputError(`${file}:${line}: expected a JSON object (one result per line).`, { file, line });
      items.push(itemOfLine(rec, line, warnings, file));
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      firstError ??= error;
      warnings.push(`${error.message.replace(/\.$/, '')}: left out of NeuroEval's own analysis.`);
    }
  });
  if (items.length === 0 && firstError) throw firstError;
  return { items, warnings };
}

interface NeuroVlmJsonlWrite {
  readonly records: NeuroVlmJsonlRecord[];
  /** Item keys whose case was not among the given cases: written with empty ground truth. */
  readonly missingCases: string[];
}

/** Harness records for a local run's responses (see {@link toNeuroVlmJsonl}). */
export function neuroVlmJsonlRecords(run: Pick<RunRecord, 'id'> & { provenance?: Pick<RunRecord['provenance'], 'protocol' | 'jsonOutput'> | null }, responses: readonly ScorableResponse[], cases: readonly BenchCase[]): NeuroVlmJsonlWrite {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const missingCases: string[] = [];
  const protocolId = run.provenance?.protocol.id;
  const records = responses.map((r): NeuroVlmJsonlRecord => {
    const found = findQuestion(byId, r);
    if (!found) missingCases.push(r.itemKey);
    const gold = goldOf(found?.question);
    const metadata: Record<string, string> = {};
    const dataset = found?.kase.meta?.dataset;
    if (dataset) metadata.dataset = dataset;
    // The harness copies CSV cells: an unknown value is "", never null.
    for (const [field, key] of Object.entries(NEUROVLM_GT_KEYS) as [NeuroVlmScoredField, string][]) metadata[key] = gold[field] ?? '';
    const outcome = outcomeOf(r);
    const failed = outcome.kind === 'call-error';
    return {
      experiment_id: r.itemKey,
      timestamp: new Date(r.createdAt).toISOString(),
      input: {
        image_path: found?.kase.meta?.file_path ?? found?.kase.images[0]?.path ?? r.caseId,
        model_requested: r.modelId,
        ...(protocolId ? { system_prompt_type: protocolId } : {}),
        metadata,
      },
      output: {
        status: failed ? 'error' : 'success',
        parsed_response:
          outcome.kind === 'parsed' ? outcome.value : outcome.kind === 'parse-error' ? { error: `JSON parsing failed: ${outcome.error}`, raw_response: r.rawText } : null,
        error: failed ? outcome.error : null,
      },
      api_response: failed
        ? null
        : {
            ...(r.id ? { id: r.id } : {}),
            model: r.modelId,
            prompt_tokens: r.usage?.promptTokens ?? null,
            completion_tokens: r.usage?.completionTokens ?? null,
            total_tokens: r.usage?.promptTokens != null && r.usage.completionTokens != null ? r.usage.promptTokens + r.usage.completionTokens : null,
            latency_ms: Number.isFinite(r.latencyMs) ? r.latencyMs : null,
          },
      // The run's JSON-output setting (null: recorded before the setting existed), so the file says whether answers were constrained.
      neuroeval: { runId: run.id, itemKey: r.itemKey, variant: r.variant, sample: r.sample, ...(run.provenance ? { jsonOutput: run.provenance.jsonOutput ?? null } : {}) },
    };
  });
  return { records, missingCases };
}

/**
 * A local run in the harness's JSONL layout (one line per response, newline
 * terminated). Ground truth comes from `cases`; a response whose case is not
 * there gets empty metadata (not scorable). A failed call is written with
 * `status: "error"` and no `api_response`, as the harness writes one.
 */
export function toNeuroVlmJsonl(run: Pick<RunRecord, 'id'> & { provenance?: Pick<RunRecord['provenance'], 'protocol' | 'jsonOutput'> | null }, responses: readonly ScorableResponse[], cases: readonly BenchCase[]): string {
  return neuroVlmJsonlRecords(run, responses, cases).records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
