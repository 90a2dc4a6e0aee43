/**
 * Shapes shared by the runner modules: what a run is made of (spec, plan,
 * items), what it needs injected (protocol, store, lock, images, control) and
 * what it stores (responses with their turns).
 *
 * `RunProtocol` is a deliberately small view of a protocol (an adapter,
 * protocol-adapter.ts, maps a full protocol or `auto` onto it); its turns are
 * the protocols' own {@link ProtocolTurn}s, passed through unchanged.
 */
import type { BenchCase, Question } from '../bundle/types.ts';
import type { JsonOutputSetting } from '../protocols/json-output.ts';
import type { ResponseRecord, RunStatus, Timestamp } from '../model/answer.ts';
import type { EngineInfo, SamplingParams } from '../engines/engine.ts';
import type { FollowUpTurn, ParseResult, ProtocolTurn } from '../protocols/types.ts';

export type { ProtocolTurn } from '../protocols/types.ts';

// ── Variants ────────────────────────────────────────────────────────────────

export const DEGRADE_KINDS = ['noise', 'blur', 'contrast', 'jpeg', 'downsample'] as const;
export type DegradeKind = (typeof DEGRADE_KINDS)[number];
export type DegradeSeverity = 1 | 2 | 3;

/**
 * How the images of an item are presented: `none` (as stored), `text-only`
 * (no images at all: the runner drops every image reference) or
 * `degrade:<kind>:<severity>` (images transformed by the injected
 * {@link ImageLoader}).
 */
/**
 * `probe:mirror`: the consistency probe's left–right mirrored images (imaging/variant-image.ts).
 * `probe:paraphrase`: the stored images with each protocol's prompt reworded (protocols/paraphrase).
 */
export type Variant = 'none' | 'text-only' | 'probe:mirror' | 'probe:paraphrase' | `degrade:${DegradeKind}:${DegradeSeverity}`;

export type ParsedVariant =
  | { readonly kind: 'none' }
  | { readonly kind: 'text-only' }
  | { readonly kind: 'mirror' }
  | { readonly kind: 'paraphrase' }
  | { readonly kind: 'degrade'; readonly degrade: DegradeKind; readonly severity: DegradeSeverity };

// ── Protocol (local view) ───────────────────────────────────────────────────

/** What a protocol learns about the item it builds a request for. */
export interface ProtocolContext {
  readonly modelId: string;
  readonly variant: Variant;
  readonly sample: number;
}

/**
 * A scripted follow-up of a multi-turn item, sent after the model's previous
 * answer: the protocol's follow-up turn (its id is stored with the answer;
 * its images are resolved like the first request's) with the parser of its
 * answer.
 */
export interface ProtocolFollowUp extends FollowUpTurn {
  /** Parser for this turn's answer; defaults to the protocol's `parse`. */
  readonly parse?: (raw: string) => ParseResult;
}

export interface RunProtocol {
  readonly id: string;
  readonly version: string;
  /** Hash of the prompt template(s); recorded in provenance. */
  readonly templateHash: string;
  /** The opening conversation for one question of one case. */
  buildRequest(kase: BenchCase, question: Question, ctx: ProtocolContext): readonly ProtocolTurn[];
  /** Parses a raw answer; never throws for bad model output, returns `{ ok: false }`. */
  /** Parses an answer; the case and question let one protocol object dispatch per case (the `auto` protocol). */
  parse(raw: string, kase?: BenchCase, question?: Question): ParseResult;
  /** Multi-turn protocols: the follow-ups, in order. Absent or empty → single turn. */
  turns?(kase: BenchCase, question: Question, ctx: ProtocolContext): readonly ProtocolFollowUp[];
  /** The run's JSON-output setting (`benchmark` when absent). */
  readonly jsonOutput?: JsonOutputSetting;
  /** The JSON Schema a case's requests ask the engine to follow, or undefined when they ask for none. */
  jsonSchemaFor?(kase: BenchCase): Readonly<Record<string, unknown>> | undefined;
}

// ── Spec and plan ───────────────────────────────────────────────────────────

/** Case filters: values within one filter are alternatives (OR); filters combine with AND. */
export interface CaseFilters {
  readonly splits?: readonly string[];
  readonly taskFamilies?: readonly string[];
  readonly diseaseGroups?: readonly string[];
  readonly modalities?: readonly string[];
  /** Restricts the run to these case ids (in addition to the other filters). */
  readonly caseIds?: readonly string[];
}

/** A model taking part in a run. */
export interface RunModel {
  /** The model's id in the models table; part of every item key. */
  readonly id: string;
  /**
   * Identity of the weights (see `modelFilesHash`). Empty when unknown (an
   * on-prem endpoint): such a model never reuses cached answers.
   */
  readonly filesHash: string;
  /**
   * Runtime and its version, when known before loading. With both set, cached
   * answers are found without loading the model; the loaded engine must then
   * report the same values or the run fails.
   */
  readonly runtime?: string;
  readonly runtimeVersion?: string;
}

export interface RunSpec {
  readonly benchmarkId: string;
  readonly filters?: CaseFilters;
  readonly models: readonly RunModel[];
  /** Defaults to `['none']`. */
  readonly variants?: readonly Variant[];
  /** Answers per item (≥ 1). Defaults to 1. */
  readonly samples?: number;
  /** Base sampling; sample `s` uses seed `(seed + s) mod 2³²`. */
  readonly sampling: SamplingParams;
  /** Alternate models item by item instead of finishing one model before the next. */
  readonly interleave?: boolean;
}

export interface PlannedItem {
  /** `${caseId}#${questionId}|${modelId}|${variant}|s${sample}`; see `itemKeyOf`. */
  readonly itemKey: string;
  readonly caseId: string;
  readonly questionId: string;
  readonly modelId: string;
  readonly variant: Variant;
  readonly sample: number;
  /** Sampling with this sample's seed. */
  readonly sampling: SamplingParams;
}

interface PlanCounts {
  readonly cases: number;
  readonly questions: number;
  readonly models: number;
  readonly variants: number;
  readonly samples: number;
  readonly items: number;
}

/** Everything a runner needs; structured-cloneable, so it can cross into a worker. */
export interface RunPlan {
  readonly benchmarkId: string;
  readonly models: readonly RunModel[];
  readonly variants: readonly Variant[];
  readonly samples: number;
  readonly sampling: SamplingParams;
  readonly interleave: boolean;
  /** The selected cases, in benchmark order. */
  readonly cases: readonly BenchCase[];
  readonly items: readonly PlannedItem[];
  readonly counts: PlanCounts;
  /** Requested case ids that the benchmark does not have. */
  readonly missingCaseIds: readonly string[];
}

// ── Injected dependencies ───────────────────────────────────────────────────

interface RunProgressCount {
  readonly done: number;
  readonly total: number;
}

export interface RunUpdate {
  readonly status: RunStatus;
  /** Why the run stopped (failed, or paused by the runner); `null` clears it. */
  readonly error: string | null;
  readonly progress: RunProgressCount;
}

/** Runtime facts the runner learns while running, merged into the run's provenance. */
export interface ProvenancePatch {
  readonly startedAt?: Timestamp;
  readonly endedAt?: Timestamp;
  readonly engine?: { readonly modelId: string; readonly info: EngineInfo };
}

/** Where a run keeps its state. Every method may throw; the runner then stops as `failed`. */
export interface RunStore {
  /** Item keys of the run that already have a stored response. */
  completedItemKeys(runId: string): Promise<ReadonlySet<string>>;
  /** The newest response with this cache key, from any run. */
  findCached(cacheKey: string): Promise<ResponseRecord | undefined>;
  /** Upserts one response (its id is derived from run and item, so a repeat overwrites). */
  saveResponse(row: ResponseRecord): Promise<void>;
  updateRun(runId: string, update: RunUpdate): Promise<void>;
  /** Optional: records engine versions and session times in the run's provenance. */
  recordProvenance?(runId: string, patch: ProvenancePatch): Promise<void>;
}

/** Exclusive right to drive one run; in the browser a Web Lock, so two tabs cannot run it at once. */
export interface RunLock {
  /** Resolves with a release function, or throws `RunLockedError` when the run is held elsewhere. */
  acquire(runId: string): Promise<() => void | Promise<void>>;
}

export interface LoadedImage {
  readonly bytes: Uint8Array;
  readonly mime: string;
  /** SHA-256 of `bytes`, i.e. after the variant transform. */
  readonly sha256: string;
}

/** Loads an asset and applies the variant's transform (never called for `text-only`). */
export type ImageLoader = (sha256: string, variant: Variant) => Promise<LoadedImage>;

/** Read by the runner between items. See `RunController`. */
export interface RunControl {
  /** When true the runner stops after the current item, as `paused`. */
  readonly pauseRequested: boolean;
  /** Aborting it stops at once (the in-flight answer is dropped), as `cancelled`. */
  readonly signal: AbortSignal;
}

export interface RunProgress {
  readonly runId: string;
  readonly phase: 'loading-model' | 'running' | 'finished';
  readonly modelId: string | null;
  readonly overall: RunProgressCount;
  /** Items of the current model. */
  readonly model: RunProgressCount | null;
  /** Decode speed of the current model in this session (decode-speed.ts); null before it is measured. */
  readonly decodeTps: number | null;
  /** The answer just stored. */
  readonly latest?: ResponseRecord;
}

export type RunEndStatus = Extract<RunStatus, 'done' | 'paused' | 'cancelled' | 'failed'>;

export interface RunOutcome {
  readonly status: RunEndStatus;
  /** Why the run paused or failed. */
  readonly error: string | null;
  readonly progress: RunProgressCount;
  /** Counts of this session. */
  readonly generated: number;
  readonly reused: number;
  readonly errors: number;
  /** Engines loaded in this session, by model id. */
  readonly engines: Readonly<Record<string, EngineInfo>>;
}
