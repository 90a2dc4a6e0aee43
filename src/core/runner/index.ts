/**
 * Runner core: plan a run, drive it over an engine with resume, caching,
 * pause/cancel and per-item errors, and describe its provenance. Pure logic;
 * the browser worker that drives it injects engines, storage, images and the
 * lock.
 */
export * from './types.ts';
export { ALL_VARIANTS, PARAPHRASE_VARIANT, checkVariants, degradeVariant, isVariant, parseVariant, variantLabel } from './variants.ts';
export { itemKeyOf, planRun, planSummary, responseIdOf, sampleSeed, selectCases } from './plan.ts';
export { CACHE_KEY_VERSION, cacheKey, isReusable, modelFilesHash, promptHash } from './cache-key.ts';
export type { CacheKeyInput } from './cache-key.ts';
export { PROVENANCE_SCHEMA, applyProvenancePatch, buildProvenance, describeProvenance, formatDuration, isProvenance } from './provenance.ts';
export type { Provenance, ProvenanceAdapter, ProvenanceInputs, ProvenanceMerge, ProvenanceModel, ProvenanceModelInput, ProvenanceRow, ProvenanceShard } from './provenance.ts';
export { RunController, RunLockedError, memoryRunLock, runLockName, webLocksRunLock } from './control.ts';
export type { LockManagerLike } from './control.ts';
export { EnginePool } from './engine-pool.ts';
export type { EngineFactory, LoadedEngine } from './engine-pool.ts';
export { isPausingEngineError, runRun } from './runner.ts';
export type { RunOptions } from './runner.ts';
export { CHARS_PER_TOKEN, COLD_WAIT_MS, DEFAULT_IMAGE_TOKENS, LIVE_HALF_WEIGHT, WARMUP_ANSWERS, estimateRun, itemSeconds, itemWorkload, planWorkloads, protocolKey, remainingSeconds, speedRecord } from './estimate.ts';
export type { AnswerSample, ItemSeconds, ItemWorkload, LiveRate, ModelEstimate, ProtocolSpeed, Remaining, RunEstimate, SpeedRecord } from './estimate.ts';
export { memoryRunStore } from './memory-store.ts';
export type { MemoryRunStore } from './memory-store.ts';
