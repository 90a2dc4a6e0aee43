/**
 * The self-test *text* model: a tiny decoder-only causal LM with random
 * weights in the layout transformers.js 4.3.1 loads with
 * `AutoModelForCausalLM` for `model_type: "llama"` (`LlamaForCausalLM`, one
 * `onnx/model.onnx` session: input_ids + attention_mask + position_ids +
 * past_key_values.N.{key,value} → logits + present.N.{key,value}). It reuses
 * the VLM's decoder graph and byte-level BPE tokenizer, without the image
 * tokens, and a ChatML chat template as SmolLM2-Instruct has.
 */
import { DISCLAIMER, json, utf8, withManifest, type ModelFile } from './build.ts';
import { GraphBuilder } from '../onnx/onnx-writer.ts';
import { OPSET, PRODUCER, causalDecoder, llamaDecoderConfig, weights, type DecoderDims } from './graphs.ts';
import { LEADING_SPECIAL_TOKENS, buildVocabulary, tokenId, tokenizerJson, type Vocabulary } from './tokenizer.ts';

export const SELF_TEST_TEXT_MODEL_ID = 'self-test-text';
const SELF_TEST_TEXT_MODEL_NAME = 'Self-test text model (random weights)';
const ARCHITECTURE = 'LlamaForCausalLM';
/** Seeds this model's weight streams apart from the VLM's. */
const SEED = 'neuroeval-self-test-text';
/** No image tokens: the text model's vocabulary ends with the BPE merges. */
const NO_TRAILING: readonly string[] = [];

/** ChatML, the template of SmolLM2-Instruct (without its default system prompt). */
const TEXT_CHAT_TEMPLATE = [
  '{% for message in messages %}',
  "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}",
  '{% endfor %}',
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
].join('');

function dims(vocab: Vocabulary): DecoderDims {
  return { vocabSize: vocab.size, hidden: 32, heads: 2, headDim: 16, layers: 2, intermediate: 64 };
}

/** Letters, spaces and merges favoured; special tokens all but excluded; the end of the turn possible but unlikely. */
function outputBias(vocab: Vocabulary, eos: number): Float32Array {
  const bias = new Float32Array(vocab.size).fill(1); // the merges
  for (const token of LEADING_SPECIAL_TOKENS) bias[tokenId(vocab, token)] = -8;
  bias[eos] = -3;
  vocab.byteIds.forEach((id, byte) => {
    const letter = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a);
    bias[id] = letter || byte === 0x20 ? 1 : byte >= 0x21 && byte <= 0x7e ? -1 : -6;
  });
  return bias;
}

/** `model`: input_ids → (token embedding, the VLM's causal decoder) → logits, with the KV cache. */
function causalLmGraph(d: DecoderDims, bias: Float32Array): Uint8Array {
  const g = new GraphBuilder('main_graph');
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const table = g.constant(weights('embed_tokens', [d.vocabSize, d.hidden], 0.8, SEED));
  const embeds = g.op('Gather', [table, ids], { axis: { int: 0 } });
  causalDecoder(g, d, embeds, bias, SEED);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/** All files of the text model's folder, manifest.json last. */
export function buildSelfTestTextModel(): ModelFile[] {
  const vocab = buildVocabulary(NO_TRAILING);
  const d = dims(vocab);
  const bos = tokenId(vocab, '<|im_start|>');
  const eos = tokenId(vocab, '<|im_end|>');
  const config = {
    architectures: [ARCHITECTURE],
    ...llamaDecoderConfig(d, { bos, eos, pad: eos }),
    'transformers.js_config': { dtype: 'fp32' },
    neuroeval: { name: SELF_TEST_TEXT_MODEL_NAME, note: DISCLAIMER },
  };
  const tokenizerConfig = {
    add_prefix_space: false,
    bos_token: '<|im_start|>',
    eos_token: '<|im_end|>',
    pad_token: '<|im_end|>',
    unk_token: '<|endoftext|>',
    clean_up_tokenization_spaces: false,
    model_max_length: 2048,
    tokenizer_class: 'GPT2Tokenizer',
    chat_template: TEXT_CHAT_TEMPLATE,
  };
  const files: ModelFile[] = [
    { path: 'README.md', bytes: utf8.encode(readme(d)) },
    { path: 'config.json', bytes: json(config) },
    { path: 'generation_config.json', bytes: json({ bos_token_id: bos, eos_token_id: eos, pad_token_id: eos }) },
    { path: 'tokenizer.json', bytes: json(tokenizerJson(vocab, NO_TRAILING)) },
    { path: 'tokenizer_config.json', bytes: json(tokenizerConfig) },
    { path: 'onnx/model.onnx', bytes: causalLmGraph(d, outputBias(vocab, eos)) },
  ];
  return withManifest(files, { name: SELF_TEST_TEXT_MODEL_NAME, modelId: SELF_TEST_TEXT_MODEL_ID, architecture: ARCHITECTURE, note: DISCLAIMER });
}

function readme(d: DecoderDims): string {
  return `---
license: apache-2.0
library_name: transformers.js
pipeline_tag: text-generation
tags:
  - self-test
  - random-weights
---

# ${SELF_TEST_TEXT_MODEL_NAME}

${DISCLAIMER}

Do not use it to judge anything: its answers are noise.

It has the file layout, \`config.json\` and ONNX input/output names of a transformers.js
Llama-style causal LM export (\`LlamaForCausalLM\`, loaded with \`AutoModelForCausalLM\`), so the
real \`@huggingface/transformers\` loading and generation code runs on it:

| file | what it is |
|---|---|
| \`onnx/model.onnx\` | input_ids + attention_mask + position_ids + past_key_values.N.key/value → logits over ${d.vocabSize} tokens + present.N.key/value: token embedding and a ${d.layers}-layer causal attention decoder (${d.heads} heads × ${d.headDim}) |
| \`tokenizer.json\` | byte-level BPE: 256 byte symbols, a few merges, \`<\\|endoftext\\|>\`, \`<\\|im_start\\|>\`, \`<\\|im_end\\|>\` |
| \`tokenizer_config.json\` | ChatML chat template (\`<\\|im_start\\|>role\\ncontent<\\|im_end\\|>\`), as SmolLM2-Instruct |
| \`manifest.json\` | every other file with its size and SHA-256 |

Only fp32 files exist (\`"transformers.js_config": {"dtype": "fp32"}\` in config.json makes that the default).

Regenerate with \`npm run self-test-model\`; the output is byte-identical on every run.
`;
}
