/**
 * The model types the engine's own decoder (cached-generation.ts) drives:
 * those whose positions transformers.js derives from the attention mask
 * alone (no rope index, no special offsets of its own). A module of its own
 * because the load (loading.ts) decides from it, before the model exists,
 * whether the decoder file may be edited so that only that decoder can run
 * it (decoder-graph.ts).
 */
const DRIVEN_TYPES = new Set(['idefics3', 'smolvlm', 'llava', 'llama', 'mistral', 'qwen2', 'qwen3', 'phi3', 'gemma', 'gemma2', 'granite', 'olmo', 'olmo2', 'smollm3', 'gpt_neox']);

/** Whether a model with this configuration (its config.json) is of a type the engine's decoder drives. */
export function drivenType(config: unknown): boolean {
  const c = config as { model_type?: unknown; is_encoder_decoder?: unknown } | null;
  return !c?.is_encoder_decoder && typeof c?.model_type === 'string' && DRIVEN_TYPES.has(c.model_type);
}
