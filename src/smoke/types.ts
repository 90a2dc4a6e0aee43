/**
 * What the real-weights smoke test's page (./harness.ts) and its driver
 * (scripts/smoke-real.ts) say to each other through Playwright.
 */
import type { EngineSpec } from '../core/engines/spec.ts';
import type { ResponseRecord } from '../core/model/answer.ts';

export interface SmokeGpu {
  readonly available: boolean;
  readonly reason?: string;
  readonly adapter: string;
  readonly fallback: boolean;
  readonly shaderF16: boolean;
  /** The device the app itself would choose here, and why. */
  readonly preferred: 'webgpu' | 'wasm';
  readonly preferredReason: string;
}

/** One protocol's question, picked from the demo benchmark. */
export interface SmokePick {
  readonly protocolId: string;
  readonly protocolLabel: string;
  readonly caseId: string;
  /** The case's own default protocol is this one (else the protocol merely fits the case). */
  readonly native: boolean;
  readonly answerBudget: number;
  /** The protocol's prompt asks for a JSON answer. */
  readonly expectsJson: boolean;
}

export interface SmokePrepared {
  readonly benchmarkId: string;
  readonly picks: readonly SmokePick[];
  /** Protocols no demo case fits. */
  readonly unfit: readonly string[];
}

/** What WebGPU itself reported in the model's worker (workers/runtime/gpu-meter.ts), whatever error the runtime made of it. */
export interface SmokeGpuErrors {
  readonly outOfMemory: string | null;
  readonly deviceLost: string | null;
}

export interface SmokeLoad {
  readonly ok: boolean;
  readonly error?: SmokeError;
  readonly wallMs: number;
  /** Bytes of model files the load read, as its download progress counted them (0 when it reported none). */
  readonly modelBytes: number;
  /** The files it named while reading them, in order. */
  readonly modelFiles: readonly string[];
  readonly runtime?: string;
  readonly device?: string;
  /** transformers.js: the weight format each session was loaded in, and onnxruntime-web's WASM threads. */
  readonly weights?: Readonly<Record<string, string>>;
  readonly wasmThreads?: number;
  readonly gpuPeakBytes: number;
  readonly gpuErrors: SmokeGpuErrors;
}

export interface SmokeError {
  readonly name: string;
  readonly code?: string;
  readonly message: string;
}

/** A stored answer as the runner wrote it (`rawText` as `text`), with the smoke test's JSON verdict. */
export interface SmokeAnswer extends Pick<ResponseRecord, 'questionId' | 'finishReason' | 'parseError' | 'usage' | 'latencyMs'> {
  readonly text: string;
  /** For a JSON protocol: the answer is JSON as sent, JSON only after closing what the token budget cut, or no JSON at all. */
  readonly json: 'valid' | 'repaired' | 'invalid' | null;
}

export interface SmokeRunResult {
  readonly pick: SmokePick;
  readonly runId: string;
  /** Why the run failed, when it did. */
  readonly error: string | null;
  readonly answers: readonly SmokeAnswer[];
  readonly wallMs: number;
  /** Peak GPU buffer bytes in the model's worker during this run (0 on WASM). */
  readonly gpuPeakBytes: number;
  readonly gpuErrors: SmokeGpuErrors;
}

/** One answer of a whole-benchmark run, as stored, with when it was stored. */
export interface SmokeBenchAnswer extends Pick<ResponseRecord, 'caseId' | 'finishReason' | 'usage' | 'latencyMs' | 'createdAt'> {
  readonly text: string;
}

/** A whole-benchmark run through the app's runner (the throughput bench). */
export interface SmokeBenchRun {
  readonly runId: string;
  readonly error: string | null;
  readonly status: string;
  readonly answers: readonly SmokeBenchAnswer[];
  /** From the start call to the run's end, in the page. */
  readonly wallMs: number;
  /**
   * The page's main-thread long tasks (over 50 ms) while the run ran: how
   * many, the longest (ms); and of its long animation frames, how many, the
   * script time in them (ms) and the script invokers that took most of it.
   */
  readonly longTasks: { readonly count: number; readonly longestMs: number; readonly frames: number; readonly scriptMs: number; readonly invokers: Readonly<Record<string, number>> };
  /** The model as its worker loaded it (transformers.js): weights per session and WASM threads. */
  readonly weights: Readonly<Record<string, string>> | null;
  readonly wasmThreads: number | null;
}

export interface SmokeApi {
  gpu(): Promise<SmokeGpu>;
  prepare(protocols: readonly string[] | null): Promise<SmokePrepared>;
  /** Loads the model through the app's model host; `gpuLimitBytes` pretends the GPU has only that much. */
  load(spec: EngineSpec, gpuLimitBytes: number | null): Promise<SmokeLoad>;
  /** One question of `pick`'s protocol as a one-case run; `text-only` for a text model (a judge). */
  run(spec: EngineSpec, benchmarkId: string, pick: SmokePick, options: { readonly maxTokens: number | null; readonly variant: 'none' | 'text-only' }): Promise<SmokeRunResult>;
  /** The demo benchmark's id, loaded as the app loads it on first start. */
  demo(): Promise<string>;
  /** Main-thread long tasks in `ms` of this page doing nothing: what the machine's other load alone causes. */
  idleLongTasks(ms: number): Promise<{ readonly count: number; readonly longestMs: number }>;
  /** A run of `protocolId` over the benchmark's cases (the first `cases` of them, or all), greedy with `maxTokens`, as the Runs page starts one. */
  runBenchmark(spec: EngineSpec, benchmarkId: string, options: { readonly protocolId: string; readonly maxTokens: number; readonly cases?: number }): Promise<SmokeBenchRun>;
}

declare global {
  interface Window {
    neuroevalSmoke?: SmokeApi;
    neuroevalSmokeProgress?: (p: { readonly stage: string; readonly phase: string; readonly done: number; readonly total?: number; readonly message?: string }) => void;
  }
}
