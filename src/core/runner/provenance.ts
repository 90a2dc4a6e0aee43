/**
 * Provenance: what produced a run's answers, stored on the run record
 * (`RunRecord.provenance`) so results can be reported and reproduced. Built
 * once when the run is created; the runner adds engine versions and session
 * times as it learns them (see {@link applyProvenancePatch}).
 */
import { criteriaSha256 } from '../criteria/criteria.ts';
import type { CriteriaSet } from '../model/criteria.ts';
import type { Timestamp } from '../model/answer.ts';
import type { EngineInfo, SamplingParams } from '../engines/engine.ts';
import { canonicalJson } from '../bundle/canonical.ts';
import { modelFilesHash } from './cache-key.ts';
import { variantLabel } from './variants.ts';
import type { JsonOutputRecord } from '../protocols/json-output.ts';
import type { CaseFilters, ProvenancePatch, Variant } from './types.ts';
import { protocolName } from '../protocols/names.ts';

export const PROVENANCE_SCHEMA = 1;

export interface ProvenanceAdapter {
  readonly vendor?: string;
  readonly architecture?: string;
  readonly description?: string;
  readonly isFallbackAdapter?: boolean;
  readonly features: readonly string[];
}

export interface ProvenanceModel {
  readonly id: string;
  readonly label?: string;
  readonly runtime: string;
  /** E.g. `q4f16_1`, `fp16`; `null` when unknown. */
  readonly quantization: string | null;
  readonly files: readonly { readonly name: string; readonly sha256: string }[];
  readonly filesHash: string;
  /** What the user changed of the model's own processor settings (absent: none). */
  readonly processor?: { readonly imageSplitting?: boolean };
}

export interface Provenance {
  readonly schema: typeof PROVENANCE_SCHEMA;
  readonly app: { readonly version: string; readonly commit: string };
  /** Versions of the inference libraries in this build, e.g. `{ 'transformers.js': '4.3.1' }`. */
  readonly runtimes: Readonly<Record<string, string>>;
  readonly environment: {
    readonly userAgent: string;
    readonly crossOriginIsolated: boolean;
    /** Threads onnxruntime-web's wasm backend uses; `null` when not used or unknown. */
    readonly wasmThreads: number | null;
    /** The WebGPU adapter, `null` without WebGPU. */
    readonly adapter: ProvenanceAdapter | null;
  };
  readonly models: readonly ProvenanceModel[];
  /** Engines as loaded, by model id; more than one entry means sessions of the run used different engines. */
  readonly engines: Readonly<Record<string, readonly EngineInfo[]>>;
  readonly protocol: {
    readonly id: string;
    readonly version: string;
    /** Prompt template hashes by template name. */
    readonly templateHashes: Readonly<Record<string, string>>;
  };
  /** Base sampling; sample `s` uses seed `seed + s`. */
  readonly sampling: SamplingParams;
  readonly samples: number;
  readonly variants: readonly Variant[];
  readonly benchmark: { readonly id: string; readonly contentHash: string; readonly name?: string; readonly version?: string };
  /** The case filters the run was planned with. */
  readonly selection: CaseFilters | null;
  /** Start of the first session and end of the latest one. */
  readonly startedAt: Timestamp | null;
  readonly endedAt: Timestamp | null;
  /** Exported runs whose answers were merged into this one (stored/import-run.ts, `neuroeval merge`), oldest first. */
  readonly merged?: readonly ProvenanceMerge[];
  /**
   * The acceptance criteria pre-registered when the run was created: the
   * hash of the set (criteria/criteria.ts) and how many criteria it holds.
   * Never changed afterwards; later edits are deviations on the run record.
   */
  readonly criteria?: { readonly sha256: string; readonly count: number };
  /** Whether requests asked for JSON output (`response_format`): the run's setting and what it meant per protocol. Absent on runs made before the setting existed. */
  readonly jsonOutput?: JsonOutputRecord;
  /** Set on the export of one shard of a run (`neuroeval run --shard i/n`): the slice of the plan it answers. */
  readonly shard?: ProvenanceShard;
  /**
   * Set on a run whose answers another harness made and NeuroEval imported
   * (src/core/interchange): that harness's file and what it recorded of the
   * model. Such a run has no configuration and no NeuroEval prompt templates.
   */
  readonly imported?: ProvenanceImport;
}

/** Where an imported run's answers came from: the harness's file and the model's settings as it recorded them. */
export interface ProvenanceImport {
  /** `vlmevalkit`, `lmms-eval`, `lm-eval`, `inspect-ai` or `every-eval-ever`. */
  readonly harness: string;
  readonly file: string;
  /** SHA-256 of the file's bytes. */
  readonly sha256: string;
  /** The model as the harness named it. */
  readonly model: string;
  readonly task: string | null;
  /** Generation settings and model arguments as the file recorded them. */
  readonly settings: Readonly<Record<string, string | number | boolean | null>>;
  /** When the harness ran, when the file says. */
  readonly ranAt: Timestamp | null;
  readonly importedAt: Timestamp;
  /** The file's items: matched to cases (of which by the user's mapping), left unmatched, and left out as second answers. */
  readonly items: { readonly matched: number; readonly mapped: number; readonly unmatched: number; readonly duplicates: number };
}

/** Which slice of a run's plan a shard answers: shard `index` (1-based) of `count`, holding `items` planned items. */
export interface ProvenanceShard {
  readonly index: number;
  readonly count: number;
  readonly items: number;
}

/** One run export merged into a run. */
export interface ProvenanceMerge {
  readonly runId: string;
  readonly name: string;
  readonly exportedAt: Timestamp | null;
  readonly answers: number;
  /** The merged file's name and SHA-256, where a file was merged (`neuroeval merge`). */
  readonly file?: string;
  readonly sha256?: string;
  /** The shard the file held. */
  readonly shard?: { readonly index: number; readonly count: number };
}

export interface ProvenanceModelInput {
  readonly id: string;
  readonly label?: string;
  readonly runtime: string;
  readonly quantization?: string | null;
  readonly files: readonly { readonly name: string; readonly sha256: string }[];
  readonly processor?: { readonly imageSplitting?: boolean };
}

export interface ProvenanceInputs {
  readonly app: { readonly version: string; readonly commit: string };
  readonly runtimes?: Readonly<Record<string, string>>;
  readonly environment: {
    readonly userAgent: string;
    readonly crossOriginIsolated: boolean;
    readonly wasmThreads?: number | null;
    readonly adapter?: ProvenanceAdapter | null;
  };
  readonly models: readonly ProvenanceModelInput[];
  readonly protocol: { readonly id: string; readonly version: string; readonly templateHashes: Readonly<Record<string, string>> };
  readonly sampling: SamplingParams;
  readonly samples: number;
  readonly variants: readonly Variant[];
  readonly benchmark: Provenance['benchmark'];
  readonly selection?: CaseFilters | null;
  readonly startedAt?: Timestamp | null;
  /** The acceptance criteria pre-registered with the run, if any. */
  readonly criteria?: CriteriaSet;
  readonly jsonOutput?: JsonOutputRecord;
}

/** Builds the provenance of a new run, copying every input so later changes cannot leak in. */
export function buildProvenance(inputs: ProvenanceInputs): Provenance {
  const env = inputs.environment;
  const adapter = env.adapter ? { ...env.adapter, features: [...env.adapter.features].sort() } : null;
  return {
    schema: PROVENANCE_SCHEMA,
    app: { version: inputs.app.version, commit: inputs.app.commit },
    runtimes: { ...inputs.runtimes },
    environment: {
      userAgent: env.userAgent,
      crossOriginIsolated: env.crossOriginIsolated,
      wasmThreads: env.wasmThreads ?? null,
      adapter,
    },
    models: inputs.models.map((m) => ({
      id: m.id,
      ...(m.label === undefined ? {} : { label: m.label }),
      runtime: m.runtime,
      quantization: m.quantization ?? null,
      files: m.files.map((f) => ({ name: f.name, sha256: f.sha256 })),
      filesHash: m.files.length > 0 ? modelFilesHash(m.files) : '',
      ...(m.processor && Object.keys(m.processor).length > 0 ? { processor: { ...m.processor } } : {}),
    })),
    engines: {},
    protocol: { id: inputs.protocol.id, version: inputs.protocol.version, templateHashes: { ...inputs.protocol.templateHashes } },
    sampling: { ...inputs.sampling },
    samples: inputs.samples,
    variants: [...inputs.variants],
    benchmark: { ...inputs.benchmark },
    selection: inputs.selection ? { ...inputs.selection } : null,
    startedAt: inputs.startedAt ?? null,
    endedAt: null,
    ...(inputs.jsonOutput ? { jsonOutput: { setting: inputs.jsonOutput.setting, byProtocol: { ...inputs.jsonOutput.byProtocol } } } : {}),
    ...(inputs.criteria ? { criteria: { sha256: criteriaSha256(inputs.criteria), count: inputs.criteria.criteria.length } } : {}),
  };
}

/** True for provenance written by {@link buildProvenance}, for values whose type is not known (a file being read). */
export function isProvenance(value: unknown): value is Provenance {
  return typeof value === 'object' && value !== null && (value as { schema?: unknown }).schema === PROVENANCE_SCHEMA;
}

/**
 * Merges what a running session learned: `startedAt` is kept from the first
 * session, `endedAt` is the latest, and each engine seen is listed once per
 * model. Works on any stored object (older or missing provenance too).
 */
export function applyProvenancePatch(provenance: Provenance, patch: ProvenancePatch): Provenance;
export function applyProvenancePatch(provenance: unknown, patch: ProvenancePatch): unknown;
export function applyProvenancePatch(provenance: unknown, patch: ProvenancePatch): unknown {
  const base: Record<string, unknown> = typeof provenance === 'object' && provenance !== null ? { ...provenance } : {};
  if (patch.startedAt !== undefined && (base.startedAt === undefined || base.startedAt === null)) base.startedAt = patch.startedAt;
  if (patch.endedAt !== undefined) base.endedAt = patch.endedAt;
  if (patch.engine) {
    const engines = { ...(typeof base.engines === 'object' && base.engines !== null ? (base.engines as Record<string, EngineInfo[]>) : {}) };
    const seen = engines[patch.engine.modelId] ?? [];
    const info = { ...patch.engine.info };
    if (!seen.some((e) => canonicalJson(e) === canonicalJson(info))) engines[patch.engine.modelId] = [...seen, info];
    base.engines = engines;
  }
  return base;
}

export interface ProvenanceRow {
  readonly label: string;
  readonly value: string;
  /** A long list the value only summarises (the GPU's features), for a details toggle. */
  readonly details?: readonly string[];
}

interface DescribeOptions {
  /** How a timestamp reads; ISO 8601 unless given (the page passes the reader's local form). */
  readonly time?: (t: Timestamp) => string;
}

const short = (hash: string) => (hash ? hash.slice(0, 12) : 'unknown');
const iso = (t: Timestamp) => new Date(t).toISOString();

/** A span of milliseconds in words: "42 s", "3 min 5 s", "2 h 10 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** The WebGPU adapter in one line: its name, "(software)" for a CPU fallback such as SwiftShader, and how many features it has. */
function describeAdapter(a: NonNullable<Provenance['environment']['adapter']>): string {
  const name = [a.vendor, a.architecture, a.description].filter(Boolean).join(' · ') || 'unnamed adapter';
  const software = a.isFallbackAdapter || /swiftshader/i.test(name);
  return `WebGPU: ${name}${software ? ' (software)' : ''}, ${a.features.length} feature${a.features.length === 1 ? '' : 's'}`;
}

/** Rows for the run page, in reading order. */
export function describeProvenance(p: Provenance, options: DescribeOptions = {}): ProvenanceRow[] {
  const when = (t: Timestamp | null) => (t === null ? '—' : (options.time ?? iso)(t));
  const rows: ProvenanceRow[] = [
    { label: 'App', value: `${p.app.version} (${p.app.commit || 'unknown commit'})` },
    { label: 'Benchmark', value: `${p.benchmark.name ?? p.benchmark.id}${p.benchmark.version ? ` v${p.benchmark.version}` : ''} · content ${short(p.benchmark.contentHash)}` },
    { label: 'Cases', value: describeSelection(p.selection) },
    // The version of `auto` is a hash of the protocols it may pick: it says nothing to a person, so it is left out.
    { label: 'Protocol', value: p.protocol.id === 'auto' ? protocolName('auto') : `${protocolName(p.protocol.id)}, version ${p.protocol.version}` },
    {
      label: 'Prompt templates',
      value: Object.entries(p.protocol.templateHashes).map(([name, hash]) => `${name} ${short(hash)}`).sort().join(', ') || '—',
    },
  ];
  for (const m of p.models) {
    const parts = [m.runtime, m.quantization ?? 'quantisation unknown', `weights ${short(m.filesHash)}`];
    rows.push({ label: `Model ${m.label ?? m.id}`, value: parts.join(' · ') });
    if (m.processor?.imageSplitting !== undefined) {
      rows.push({ label: `Processor ${m.label ?? m.id}`, value: `image splitting ${m.processor.imageSplitting ? 'on' : 'off'} (changed from the model's own setting)` });
    }
    for (const e of p.engines[m.id] ?? []) {
      rows.push({ label: `Engine ${m.label ?? m.id}`, value: `${e.runtime} ${e.runtimeVersion} on ${e.device} (${e.modelId})` });
    }
  }
  const runtimes = Object.entries(p.runtimes).map(([name, v]) => `${name} ${v}`).sort();
  if (runtimes.length > 0) rows.push({ label: 'Runtimes', value: runtimes.join(', ') });
  const s = p.sampling;
  // An imported run records only what its harness's file said; the rest reads "not recorded".
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? String(x) : 'not recorded');
  if (p.imported) rows.push(...describeImport(p.imported, when));
  rows.push(
    { label: 'Sampling', value: `temperature ${n(s.temperature)} · top-p ${n(s.topP)} · max ${n(s.maxTokens)} tokens · seed ${n(s.seed)}${p.imported ? '' : ' (+ sample index)'}` },
    { label: 'Samples per item', value: String(p.samples) },
    { label: 'Variants', value: p.variants.map(variantLabel).join('; ') },
  );
  const a = p.environment.adapter;
  rows.push(
    { label: 'GPU', value: a ? describeAdapter(a) : 'none (no WebGPU)', ...(a && a.features.length > 0 ? { details: a.features } : {}) },
    { label: 'WASM threads', value: p.environment.wasmThreads === null ? '—' : String(p.environment.wasmThreads) },
    { label: 'Cross-origin isolated', value: p.environment.crossOriginIsolated ? 'yes' : 'no' },
    { label: 'Started', value: when(p.startedAt) },
    { label: 'Ended', value: when(p.endedAt) },
    ...(p.startedAt !== null && p.endedAt !== null && p.endedAt >= p.startedAt ? [{ label: 'Start to end', value: formatDuration(p.endedAt - p.startedAt) }] : []),
    { label: 'Browser', value: p.environment.userAgent || '—' },
  );
  return rows;
}

function describeImport(i: ProvenanceImport, when: (t: Timestamp | null) => string): ProvenanceRow[] {
  const settings = Object.entries(i.settings).map(([k, v]) => `${k} ${v === null ? 'none' : String(v)}`).sort();
  const { matched, mapped, unmatched, duplicates } = i.items;
  return [
    { label: 'Answers from', value: `${i.harness}: ${i.file} (SHA-256 ${short(i.sha256)})${i.task ? `, task ${i.task}` : ''}` },
    { label: 'Harness model', value: i.model },
    { label: 'Harness settings', value: settings.length ? `${settings.length} recorded` : 'none recorded', ...(settings.length ? { details: settings } : {}) },
    { label: 'Items imported', value: `${matched} matched${mapped ? ` (${mapped} by hand)` : ''}, ${unmatched} unmatched, ${duplicates} duplicate${duplicates === 1 ? '' : 's'} left out` },
    { label: 'Ran / imported', value: `${when(i.ranAt)} / ${when(i.importedAt)}` },
  ];
}

function describeSelection(f: CaseFilters | null): string {
  if (!f) return 'all';
  const parts = (
    [
      ['split', f.splits],
      ['task', f.taskFamilies],
      ['disease group', f.diseaseGroups],
      ['modality', f.modalities],
    ] as const
  )
    .filter(([, v]) => v && v.length > 0)
    .map(([name, v]) => `${name} ${v!.join('/')}`);
  if (f.caseIds && f.caseIds.length > 0) parts.push(`${f.caseIds.length} chosen case${f.caseIds.length === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(' · ') : 'all';
}
