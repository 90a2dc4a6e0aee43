export { GenerationMeter } from './generation-meter.ts';
export { applyModelSource, loadTransformers } from './runtime.ts';
export type { ModelSource, OrtWebModule, RuntimeOptions, TransformersLib, TransformersRuntime, WasmPaths } from './runtime.ts';
export { createTopPProcessor, topPFilter } from './sampling.ts';
export { TransformersEngine, type TransformersEngineOptions } from './transformers-engine.ts';
export { TransformersVlm } from './vlm.ts';
export type { TokenEvent, VlmDevice, VlmGenerateInput, VlmImage, VlmInfo, VlmLoadOptions, VlmMessage, VlmSampling } from './vlm.ts';
