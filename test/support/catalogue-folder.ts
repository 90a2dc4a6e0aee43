/**
 * A model folder laid out exactly as a catalogue entry's file list says, with
 * the self-test model's random-weight graphs in it: the SmolVLM-256M entry
 * shares the self-test VLM's architecture (Idefics3: vision encoder, token
 * embeddings, merged decoder), so the real loading code runs end to end on
 * files named and placed as the real repository's are.
 */
import { cpSync, renameSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SELF_TEST = new URL('../../public/models/self-test/', import.meta.url).pathname;

/** Writes `<dir>` as the `smolvlm-256m` catalogue entry's folder (fp32 vision and embeddings, "q4" and "q8" decoders: the same graph under both names). */
export function smolVlmFolder(dir: string): string {
  cpSync(SELF_TEST, dir, { recursive: true });
  // The self-test manifest names the self-test's files; the real repository has none.
  rmSync(join(dir, 'manifest.json'));
  rmSync(join(dir, 'README.md'));
  cpSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), join(dir, 'onnx', 'decoder_model_merged_quantized.onnx'));
  renameSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), join(dir, 'onnx', 'decoder_model_merged_q4.onnx'));
  const template = (JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string }).chat_template;
  writeFileSync(join(dir, 'chat_template.json'), JSON.stringify({ chat_template: template }));
  writeFileSync(join(dir, 'special_tokens_map.json'), '{}');
  writeFileSync(join(dir, 'added_tokens.json'), '{}');
  return dir;
}
