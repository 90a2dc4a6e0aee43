/**
 * The self-test *encoder*: a tiny BERT (`model_type: "bert"`, `BertModel`)
 * with random weights, in the layout transformers.js 4.3.1 loads with
 * `AutoModel` for feature extraction: one `onnx/model.onnx` session taking
 * input_ids, attention_mask and token_type_ids [batch, seq] and returning
 * last_hidden_state [batch, seq, hidden] and the earlier layers' outputs as
 * hidden_states.<n> (0 = embeddings), plus a WordPiece tokenizer. The extra
 * outputs let tests read a chosen layer, as BERTScore does.
 * The maths is a real (miniature) post-LayerNorm BERT encoder: word,
 * position and token-type embeddings, bidirectional self-attention over the
 * unpadded tokens, GELU feed-forward blocks.
 */
import { GraphBuilder, floatTensor, int64Tensor } from '../onnx/onnx-writer.ts';
import { DISCLAIMER, json, utf8, withManifest, type ModelFile } from './build.ts';
import { OPSET, PRODUCER, attention, ints, paddingBias, scalar, splitIntoHeads, weights } from './graphs.ts';
import { buildWordPieceVocabulary, wordPieceTokenizerConfigJson, wordPieceTokenizerJson } from './wordpiece.ts';

export const SELF_TEST_EMBED_MODEL_ID = 'self-test-embed';
const SELF_TEST_EMBED_MODEL_NAME = 'Self-test encoder (random weights)';
const ARCHITECTURE = 'BertModel';
const SEED = 'neuroeval-self-test-embed';
const LAYER_NORM_EPS = 1e-12;

interface EncoderDims {
  readonly vocabSize: number;
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;
  readonly layers: number;
  readonly intermediate: number;
  /** Longest input, special tokens included (`max_position_embeddings`, the tokenizer's `model_max_length`). */
  readonly maxPositions: number;
  readonly typeVocabSize: number;
}

/** `model`: input_ids + attention_mask + token_type_ids → last_hidden_state, hidden_states.0 … hidden_states.<layers − 1>. */
function bertEncoder(d: EncoderDims): Uint8Array {
  const g = new GraphBuilder('main_graph');
  const h = d.hidden;
  const w = (name: string, shape: readonly number[], scale: number) => g.constant(weights(name, shape, scale, SEED));
  const seqShape = ['batch_size', 'sequence_length'] as const;
  const ids = g.input('input_ids', 'int64', seqShape);
  const attentionMask = g.input('attention_mask', 'int64', seqShape);
  const tokenTypes = g.input('token_type_ids', 'int64', seqShape);

  const ones = g.constant(floatTensor([h], new Float32Array(h).fill(1)));
  const zeros = g.constant(floatTensor([h], new Float32Array(h)));
  const layerNorm = (t: string) => g.op('LayerNormalization', [t, ones, zeros], { axis: { int: -1 }, epsilon: { float: LAYER_NORM_EPS } });
  const linear = (t: string, name: string, rows: number, cols: number) =>
    g.op('Add', [g.op('MatMul', [t, w(`${name}.weight`, [rows, cols], Math.sqrt(3 / rows))]), w(`${name}.bias`, [cols], 0.05)]);

  // Embeddings: word + position (0 … seq-1) + token type, then LayerNorm.
  const gather = (table: string, indices: string) => g.op('Gather', [table, indices], { axis: { int: 0 } });
  const seqLen = g.op('Squeeze', [g.op('Shape', [ids], { start: { int: 1 }, end: { int: 2 } }), g.constant(ints([0]))]);
  const positions = g.op('Range', [g.constant(int64Tensor([], [0])), seqLen, g.constant(int64Tensor([], [1]))]);
  const summed = g.op('Add', [
    g.op('Add', [gather(w('embeddings.word', [d.vocabSize, h], 1), ids), gather(w('embeddings.position', [d.maxPositions, h], 0.2), positions)]),
    gather(w('embeddings.token_type', [d.typeVocabSize, h], 0.1), tokenTypes),
  ]);
  let x = layerNorm(summed);
  const earlier: string[] = [x];

  // Additive attention bias [batch, 1, 1, seq]: -1e4 for padding keys.
  const bias = paddingBias(g, attentionMask);
  const splitHeads = (t: string) => splitIntoHeads(g, t, d);
  const gelu = (t: string) =>
    g.op('Mul', [
      g.op('Mul', [t, g.constant(scalar(0.5))]),
      g.op('Add', [g.constant(scalar(1)), g.op('Erf', [g.op('Mul', [t, g.constant(scalar(Math.SQRT1_2))])])]),
    ]);

  for (let l = 0; l < d.layers; l++) {
    const p = `encoder.layer.${l}`;
    const q = splitHeads(linear(x, `${p}.attention.query`, h, h));
    const k = splitHeads(linear(x, `${p}.attention.key`, h, h));
    const v = splitHeads(linear(x, `${p}.attention.value`, h, h));
    const context = attention(g, q, k, v, bias, d);
    x = layerNorm(g.op('Add', [x, linear(context, `${p}.attention.output`, h, h)]));
    const ffn = linear(gelu(linear(x, `${p}.intermediate`, h, d.intermediate)), `${p}.output`, d.intermediate, h);
    x = g.op('LayerNormalization', [g.op('Add', [x, ffn]), ones, zeros], { axis: { int: -1 }, epsilon: { float: LAYER_NORM_EPS } }, l === d.layers - 1 ? 'last_hidden_state' : undefined);
    if (l < d.layers - 1) earlier.push(x);
  }
  g.output('last_hidden_state', 'float32', ['batch_size', 'sequence_length', h]);
  earlier.forEach((t, n) => {
    g.op('Identity', [t], {}, `hidden_states.${n}`);
    g.output(`hidden_states.${n}`, 'float32', ['batch_size', 'sequence_length', h]);
  });
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/** All files of the encoder's folder, manifest.json last. */
export function buildSelfTestEmbedModel(): ModelFile[] {
  const vocab = buildWordPieceVocabulary();
  const d: EncoderDims = { vocabSize: vocab.size, hidden: 32, heads: 2, headDim: 16, layers: 2, intermediate: 64, maxPositions: 128, typeVocabSize: 2 };
  const config = {
    architectures: [ARCHITECTURE],
    model_type: 'bert',
    vocab_size: d.vocabSize,
    hidden_size: d.hidden,
    num_hidden_layers: d.layers,
    num_attention_heads: d.heads,
    intermediate_size: d.intermediate,
    hidden_act: 'gelu',
    max_position_embeddings: d.maxPositions,
    type_vocab_size: d.typeVocabSize,
    layer_norm_eps: LAYER_NORM_EPS,
    pad_token_id: vocab.ids.get('[PAD]'),
    'transformers.js_config': { dtype: 'fp32' },
    neuroeval: { name: SELF_TEST_EMBED_MODEL_NAME, note: DISCLAIMER },
  };
  const files: ModelFile[] = [
    { path: 'README.md', bytes: utf8.encode(readme(d)) },
    { path: 'config.json', bytes: json(config) },
    { path: 'tokenizer.json', bytes: json(wordPieceTokenizerJson(vocab)) },
    { path: 'tokenizer_config.json', bytes: json(wordPieceTokenizerConfigJson(d.maxPositions)) },
    { path: 'onnx/model.onnx', bytes: bertEncoder(d) },
  ];
  return withManifest(files, { name: SELF_TEST_EMBED_MODEL_NAME, modelId: SELF_TEST_EMBED_MODEL_ID, architecture: ARCHITECTURE, note: DISCLAIMER });
}

function readme(d: EncoderDims): string {
  return `---
license: apache-2.0
library_name: transformers.js
pipeline_tag: feature-extraction
tags:
  - self-test
  - random-weights
---

# ${SELF_TEST_EMBED_MODEL_NAME}

${DISCLAIMER.replace('meaningless text', 'meaningless embeddings')}

Do not use it to score anything: its similarities are noise.

It has the file layout, \`config.json\` and ONNX input/output names of a transformers.js
BERT export (\`BertModel\`, loaded with \`AutoModel\` for feature extraction), so the real
\`@huggingface/transformers\` tokenizer and model code runs on it:

| file | what it is |
|---|---|
| \`onnx/model.onnx\` | input_ids + attention_mask + token_type_ids [batch, seq] → last_hidden_state [batch, seq, ${d.hidden}] and \`hidden_states.0\` … \`hidden_states.${d.layers - 1}\` (the embeddings and earlier layers, for reading a chosen layer): word, position and token-type embeddings, ${d.layers} post-LayerNorm encoder layers (${d.heads} heads × ${d.headDim}, GELU feed-forward ${d.intermediate}) |
| \`tokenizer.json\` | uncased WordPiece, ${d.vocabSize} tokens: \`[PAD] [UNK] [CLS] [SEP] [MASK]\`, letters, digits, punctuation, \`##\` continuations, a few words |
| \`manifest.json\` | every other file with its size and SHA-256 |

Inputs are at most ${d.maxPositions} tokens (\`[CLS]\` and \`[SEP]\` included). Only fp32 files exist.

Regenerate with \`npm run self-test-model\`; the output is byte-identical on every run.
`;
}
