/**
 * A foreign log's matched answers as a NeuroEval run export: one model (the
 * harness's), each answer parsed by the protocol the user picked (the
 * benchmark's own per case with `auto`), failed calls kept as failed
 * answers. The provenance says where the answers came from (harness, file,
 * SHA-256, the model's recorded settings, how many items matched), so the run
 * is scored, reviewed and reported like any other, and is never mistaken for
 * one NeuroEval generated (it has no configuration: it cannot be resumed).
 */
import type { BenchCase, ProtocolDefaults } from '../bundle/types.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { itemKeyOf } from '../runner/plan.ts';
import { runProtocol } from '../runner/protocol-adapter.ts';
import { buildProvenance, type Provenance } from '../runner/provenance.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { Variant } from '../runner/types.ts';
import { toRunExport, type RunExport } from '../scoring/io/run-export.ts';
import type { MatchResult } from './match.ts';
import { HARNESS_NAMES, type ForeignLog, type ForeignSetting } from './types.ts';

export interface ForeignRunInput {
  readonly log: ForeignLog;
  readonly match: MatchResult;
  readonly benchmark: { readonly id: string; readonly name: string; readonly version: string; readonly contentHash: string; readonly protocolDefaults?: ProtocolDefaults };
  readonly cases: readonly BenchCase[];
  /** A protocol id, or `auto` (each case's default). */
  readonly protocolId: string;
  readonly app: { readonly version: string; readonly commit: string };
  readonly importedAt: number;
  /** The run's name; a default names the model, benchmark and harness. */
  readonly name?: string;
}

/** A model id NeuroEval can key items with: the harness, then its model name with only safe characters. */
export function importedModelId(log: Pick<ForeignLog, 'harness' | 'model'>): string {
  return `${log.harness}:${log.model.replace(/[^\w.:/@+-]+/g, '-').slice(0, 120) || 'model'}`;
}

/** The first setting of `keys` that is a number, else NaN (not recorded). */
function setting(settings: Readonly<Record<string, ForeignSetting>>, keys: readonly string[]): number {
  for (const k of keys) {
    const v = settings[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  }
  return Number.NaN;
}

/** Sampling as the harness recorded it, in NeuroEval's terms; what it did not record stays NaN ("not recorded"). */
export function samplingOf(settings: Readonly<Record<string, ForeignSetting>>): Provenance['sampling'] {
  return {
    temperature: setting(settings, ['temperature', 'generation_kwargs.temperature', 'gen_kwargs.temperature']),
    topP: setting(settings, ['top_p', 'generation_kwargs.top_p', 'gen_kwargs.top_p']),
    maxTokens: setting(settings, ['max_tokens', 'generation_kwargs.max_gen_toks', 'generation_kwargs.max_new_tokens', 'max_gen_toks', 'max_new_tokens']),
    seed: setting(settings, ['seed', 'generation_kwargs.seed', 'random_seed']),
  };
}

/** The run export of a log's matched answers (see the module comment). */
export function foreignRunExport(input: ForeignRunInput): RunExport {
  const { log, match, benchmark } = input;
  const modelId = importedModelId(log);
  const harness = HARNESS_NAMES[log.harness];
  const protocol = runProtocol(input.protocolId, benchmark.protocolDefaults ? { defaults: benchmark.protocolDefaults } : {});
  const keys = match.matched.map((m) => itemKeyOf({ caseId: m.caseId, questionId: m.questionId, modelId, variant: m.variant as Variant, sample: m.sample }));
  // The same file, benchmark content, protocol and matches give the same run: importing it again adds nothing.
  const runId = `import-${sha256Hex([log.sha256, benchmark.contentHash, input.protocolId, ...keys].join('\n')).slice(0, 16)}`;
  const cases = new Map(input.cases.map((c) => [c.id, c]));
  const responses: ResponseRecord[] = match.matched.map((m, i) => {
    const kase = cases.get(m.caseId);
    const question = kase?.questions.find((q) => q.id === m.questionId);
    const { item } = m;
    const failed = item.answer === null;
    const parsed = failed ? null : protocol.parse(item.answer!, kase, question);
    return {
      id: `${runId}/${keys[i]!}`,
      runId,
      itemKey: keys[i]!,
      caseId: m.caseId,
      questionId: m.questionId,
      cacheKey: '',
      modelId,
      variant: m.variant,
      sample: m.sample,
      rawText: item.answer ?? '',
      parsed: parsed?.ok ? parsed.value : null,
      parseError: parsed && !parsed.ok ? parsed.error : null,
      usage: { promptTokens: item.usage?.promptTokens ?? null, completionTokens: item.usage?.completionTokens ?? null, ttftMs: null, prefillTps: null, decodeTps: null },
      latencyMs: item.latencyMs ?? Number.NaN,
      finishReason: failed ? 'error' : 'stop',
      createdAt: log.createdAt ?? input.importedAt,
      ...(failed ? { error: item.error ?? 'no answer' } : {}),
    } as ResponseRecord;
  });
  const caseIds = [...new Set(match.matched.map((m) => m.caseId))];
  const variants = [...new Set(match.matched.map((m) => m.variant))] as Variant[];
  const samples = Math.max(1, ...match.matched.map((m) => m.sample + 1));
  const base = buildProvenance({
    app: input.app,
    runtimes: {},
    environment: { userAgent: `${harness} (answers imported into NeuroEval)`, crossOriginIsolated: false },
    models: [{ id: modelId, label: `${log.model} (${harness})`, runtime: log.harness, files: [] }],
    // The prompts were the harness's, not NeuroEval's templates: no template hash is claimed.
    protocol: { id: protocol.id, version: protocol.version, templateHashes: {} },
    sampling: samplingOf(log.settings),
    samples,
    variants: variants.length ? variants : ['none'],
    benchmark: { id: benchmark.id, name: benchmark.name, version: benchmark.version, contentHash: benchmark.contentHash },
    selection: caseIds.length < input.cases.length ? { caseIds } : null,
    startedAt: log.createdAt,
  });
  const provenance: Provenance = {
    ...base,
    endedAt: log.createdAt,
    imported: {
      harness: log.harness,
      file: log.file,
      sha256: log.sha256,
      model: log.model,
      task: log.task,
      settings: { ...log.settings },
      ranAt: log.createdAt,
      importedAt: input.importedAt,
      items: { matched: match.matched.length, mapped: match.matched.filter((m) => m.how === 'mapping').length, unmatched: match.unmatched.length, duplicates: match.duplicates.length },
    },
  };
  return toRunExport(
    {
      id: runId,
      benchmarkId: benchmark.id,
      name: input.name ?? `${log.model} on ${benchmark.name} (${harness})`,
      status: 'done',
      createdAt: input.importedAt,
      updatedAt: input.importedAt,
      config: null,
      provenance,
      plan: { cases: caseIds.length, models: 1, variants: Math.max(1, variants.length), samples, items: responses.length },
    },
    responses,
    input.cases,
    { exportedAt: input.importedAt },
  );
}
