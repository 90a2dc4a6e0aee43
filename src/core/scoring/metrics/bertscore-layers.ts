/**
 * Which encoder layer BERTScore reads, as bert_score (0.3.13) picks it: its
 * `model2layers` table gives, per model, the layer whose output correlated
 * best with human judgements (WMT16), and its rescale baselines are per
 * layer, so a baseline belongs to one layer of one model. For a model not in
 * the table bert_score has no default; NeuroEval then uses the last layer.
 *
 * Layers count as in Hugging Face's `hidden_states`: 0 is the embedding
 * output, n the n-th transformer layer; bert_score keeps the first n layers,
 * so its "layer n" is `hidden_states[n]`.
 */

/** bert_score's layer per model, grouped by layer (the table's data, regrouped). */
const LAYER_MODELS: Readonly<Record<number, readonly string[]>> = {
  0: ['amazon/bort'],
  1: ['google/bert_uncased_L-2_H-128_A-2', 'google/bert_uncased_L-2_H-256_A-4', 'google/bert_uncased_L-2_H-512_A-8', 'google/byt5-small'],
  2: ['facebook/blenderbot-400M-distill', 'google/bert_uncased_L-2_H-768_A-12', 'sshleifer/tiny-mbart'],
  3: ['google/bert_uncased_L-4_H-128_A-2', 'google/bert_uncased_L-4_H-256_A-4', 'google/bert_uncased_L-4_H-512_A-8', 'google/bert_uncased_L-4_H-768_A-12'],
  4: ['dbmdz/distilbert-base-turkish-cased', 'distilbert-base-uncased-distilled-squad', 'microsoft/deberta-v3-small', 'microsoft/prophetnet-large-uncased', 'zhiheng-huang/bert-base-uncased-embedding-relative-key'],
  5: ['distilbert-base-multilingual-cased', 'distilbert-base-uncased', 'distilroberta-base', 'google/bert_uncased_L-6_H-128_A-2', 'google/bert_uncased_L-6_H-256_A-4', 'google/bert_uncased_L-6_H-512_A-8', 'google/bert_uncased_L-6_H-768_A-12', 'xlnet-base-cased'],
  6: ['allenai/led-base-16384', 'facebook/bart-base', 'google/bert_uncased_L-8_H-512_A-8', 't5-small', 'xlm-mlm-en-2048'],
  7: ['allenai/longformer-base-4096', 'facebook/blenderbot_small-90M', 'google/bert_uncased_L-8_H-128_A-2', 'google/bert_uncased_L-8_H-256_A-4', 'google/bert_uncased_L-8_H-768_A-12', 'microsoft/prophetnet-large-uncased-cnndm', 'microsoft/xprophetnet-large-wiki100-cased', 'roberta-base-openai-detector', 'xlnet-large-cased', 'zhiheng-huang/bert-base-uncased-embedding-relative-key-query'],
  8: ['SpanBERT/spanbert-base-cased', 'albert-xxlarge-v1', 'albert-xxlarge-v2', 'allenai/scibert_scivocab_uncased', 'bert-base-chinese', 'google/bert_uncased_L-10_H-128_A-2', 'google/bert_uncased_L-10_H-256_A-4', 'google/bert_uncased_L-10_H-768_A-12', 'google/bigbird-base-trivia-itc', 'google/mt5-small', 'google/pegasus-large', 'microsoft/mpnet-base', 'princeton-nlp/unsup-simcse-roberta-base'],
  9: ['YituTech/conv-bert-medium-small', 'albert-base-v2', 'allenai/scibert_scivocab_cased', 'bert-base-cased-finetuned-mrpc', 'bert-base-multilingual-cased', 'bert-base-uncased', 'facebook/bart-large-xsum', 'google/bert_uncased_L-10_H-512_A-8', 'google/bert_uncased_L-12_H-768_A-12', 'google/electra-base-discriminator', 'google/electra-small-generator', 'microsoft/deberta-base', 'microsoft/deberta-base-mnli', 'microsoft/deberta-v3-base', 'nfliu/scibert_basevocab_uncased', 'squeezebert/squeezebert-mnli', 'squeezebert/squeezebert-mnli-headless', 'squeezebert/squeezebert-uncased', 'vinai/bertweet-base', 'xlm-roberta-base'],
  10: ['ProsusAI/finbert', 'YituTech/conv-bert-base', 'YituTech/conv-bert-small', 'albert-base-v1', 'dbmdz/bert-base-turkish-cased', 'facebook/bart-large', 'facebook/bart-large-cnn', 'google/bert_uncased_L-12_H-128_A-2', 'google/bert_uncased_L-12_H-512_A-8', 'google/bigbird-roberta-base', 'google/electra-base-generator', 'microsoft/deberta-v2-xlarge', 'microsoft/deberta-v3-xsmall', 'microsoft/mdeberta-v3-base', 'princeton-nlp/sup-simcse-bert-base-uncased', 'princeton-nlp/sup-simcse-roberta-base', 'princeton-nlp/unsup-simcse-bert-base-uncased', 'roberta-base', 'xlm-mlm-100-1280'],
  11: ['facebook/bart-large-mnli', 'google/bert_uncased_L-12_H-256_A-4', 'google/electra-small-discriminator', 'google/mt5-base', 'google/pegasus-xsum', 'ramsrigouthamg/t5_paraphraser', 't5-base'],
  12: ['Vamsi/T5_Paraphrase_Paws', 'facebook/mbart-large-50', 'facebook/mbart-large-50-many-to-many-mmt', 'facebook/mbart-large-50-one-to-many-mmt', 'facebook/mbart-large-cc25', 'facebook/mbart-large-en-ro', 'microsoft/deberta-v3-large'],
  13: ['albert-xlarge-v2', 'princeton-nlp/unsup-simcse-roberta-large'],
  14: ['albert-large-v2', 'allenai/longformer-large-4096', 'allenai/longformer-large-4096-finetuned-triviaqa', 'google/bigbird-roberta-large', 'google/electra-large-discriminator'],
  15: ['roberta-large-openai-detector', 'tuner007/pegasus_paraphrase'],
  16: ['albert-xlarge-v1', 'microsoft/deberta-large', 'princeton-nlp/sup-simcse-roberta-large'],
  17: ['SpanBERT/spanbert-large-cased', 'albert-large-v1', 'google/byt5-base', 'microsoft/deberta-v2-xlarge-mnli', 'roberta-large', 'xlm-roberta-large'],
  18: ['bert-large-uncased', 'google/electra-large-generator', 'khalidalt/DeBERTa-v3-large-mnli', 'microsoft/deberta-large-mnli', 'microsoft/deberta-xlarge', 'princeton-nlp/sup-simcse-bert-large-uncased', 'princeton-nlp/unsup-simcse-bert-large-uncased'],
  19: ['google/mt5-large', 'roberta-large-mnli', 'zhiheng-huang/bert-large-uncased-whole-word-masking-embedding-relative-key-query'],
  21: ['microsoft/deberta-v2-xxlarge'],
  22: ['microsoft/deberta-v2-xxlarge-mnli'],
  23: ['t5-large'],
  24: ['google/mt5-xl'],
  30: ['google/byt5-large'],
  40: ['microsoft/deberta-xlarge-mnli'],
};

const BERT_SCORE_LAYERS: ReadonlyMap<string, number> = new Map(
  Object.entries(LAYER_MODELS).flatMap(([layer, models]) => models.map((m) => [m, Number(layer)] as const)),
);

/**
 * Owners on the Hugging Face hub whose repositories carry an upstream model
 * under its own name: ONNX conversions (`Xenova/bert-base-uncased`) and the
 * organisations the hub moved the original checkpoints to
 * (`google-bert/bert-base-uncased` was `bert-base-uncased`).
 */
const SAME_NAME_OWNERS = new Set(['xenova', 'onnx-community', 'google-bert', 'facebookai', 'distilbert', 'albert', 'google-t5', 'xlnet', 'flaubert']);

/**
 * bert_score's layer for `model` (a hub id such as the encoder config's
 * `_name_or_path`), or null when bert_score's table does not list it.
 */
export function bertScoreLayerFor(model: string | null | undefined): number | null {
  if (!model) return null;
  const exact = BERT_SCORE_LAYERS.get(model);
  if (exact !== undefined) return exact;
  const slash = model.indexOf('/');
  if (slash < 0 || !SAME_NAME_OWNERS.has(model.slice(0, slash).toLowerCase())) return null;
  const name = model.slice(slash + 1);
  const direct = BERT_SCORE_LAYERS.get(name);
  if (direct !== undefined) return direct;
  // `Xenova/deberta-v3-base` mirrors `microsoft/deberta-v3-base`: match the name after the owner, when only one entry has it.
  const byName = [...BERT_SCORE_LAYERS].filter(([k]) => k.slice(k.indexOf('/') + 1) === name);
  return byName.length === 1 ? byName[0]![1] : null;
}

/** The layer a BERTScore figure was computed from; stored with every figure. */
export interface BertScoreLayer {
  /** The layer whose output was matched (0 = embeddings); null when the encoder does not state its depth (its last layer). */
  readonly used: number | null;
  /** The encoder's number of layers, when its config states it. */
  readonly layers: number | null;
  /** bert_score's layer for this encoder, or null when its table does not list the model. */
  readonly bertScore: number | null;
  /** The model name the layer was looked up by. */
  readonly model: string | null;
}

/** The figure is computed from another layer than bert_score uses for this model. */
export function differsFromBertScore(layer: BertScoreLayer): boolean {
  return layer.bertScore !== null && layer.used !== layer.bertScore;
}

/** One line for the UI, the CLI and the report, e.g. "layer 9 of 12 (bert_score's layer for bert-base-uncased)". */
export function describeLayer(layer: BertScoreLayer): string {
  const of = layer.layers !== null ? ` of ${layer.layers}` : '';
  const used = layer.used !== null ? `layer ${layer.used}${of}` : 'last layer';
  if (layer.bertScore === null) return `${used} (last; bert_score's layer table does not list ${layer.model ?? 'this encoder'})`;
  if (layer.used === layer.bertScore) return `${used} (bert_score's layer for ${layer.model})`;
  return `${layer.used === layer.layers || layer.used === null ? `last ${used}` : used} (bert_score uses layer ${layer.bertScore} for ${layer.model}, which this encoder's graph does not output: not bert_score-exact)`;
}

/** How a score set computed BERTScore (its stored `bertscore` setting). */
interface BertScoreSetting {
  readonly idf: boolean;
  readonly baseline: { readonly precision: number; readonly recall: number; readonly f: number } | null;
  readonly layer?: BertScoreLayer;
  readonly batchSize?: number;
}

/** One line for a score set's BERTScore: IDF, rescaling (with the layer its baseline row must belong to), layer. */
export function describeBertScoreSetting(b: BertScoreSetting): string {
  const rescale = b.baseline ? `rescaled (P ${b.baseline.precision}, R ${b.baseline.recall}, F ${b.baseline.f}${b.layer?.used != null ? `: the baseline row of layer ${b.layer.used}` : ''})` : 'raw';
  // Sets scored before the layer was recorded read the last layer without [CLS]/[SEP].
  const layer = b.layer ? describeLayer(b.layer) : 'layer not recorded (an older set: last layer, [CLS]/[SEP] left out; not bert_score-exact)';
  const batches = b.batchSize === undefined ? 'each pair alone' : b.batchSize === 1 ? 'each pair alone (batch size 1)' : `pairs in padded batches of ${b.batchSize} as bert_score matches them`;
  return `BERTScore${b.idf ? ' with IDF' : ''}, ${rescale}, ${layer}, ${batches}`;
}

/** The encoder of a score set with how its BERTScore was computed, for provenance tables. */
export function encoderProvenance(encoder: string, bertscore: BertScoreSetting | undefined): string {
  return bertscore ? `${encoder} (${describeBertScoreSetting(bertscore)})` : encoder;
}
