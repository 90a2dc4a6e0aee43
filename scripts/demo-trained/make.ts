/**
 * The demo-trained model, end to end (not part of CI; CI uses the committed
 * files in public/models/demo-trained/):
 *
 *   npm run demo-model -- data  --out <dir>            # tokenizer, configs, training data
 *   /usr/bin/python3 scripts/demo-trained/train.py <dir>  # PyTorch (python3-torch), writes <dir>/weights.*
 *   npm run demo-model -- build --data <dir>           # ONNX graphs → public/models/demo-trained/
 *   npm run demo-model -- check --cases 100            # the built model on a held-out set, in Node
 *
 * Training data are NeuroVLM-Bench style cases drawn by the demo generator
 * with seeds 1000 (training) and 1001 (validation); seeds below 1000 are
 * left for held-out sets (`npm run demo -- --seed 7 --cases 100`). Every
 * input is made by the app's own code: the protocol's request
 * (src/core/protocols), the engine's chat encoding (src/core/engines/
 * transformers/vlm.ts encodeChat) and transformers.js' processor, so the
 * model learns exactly what it will be given.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchCase } from '../../src/core/bundle/types.ts';
import { mapTurnImages } from '../../src/core/chat/turn.ts';
import { drawnCases, renderSlice, DEMO_IMAGE_SIZE } from '../../src/core/demo/index.ts';
import { NVB_CLASSES, type DemoCase } from '../../src/core/demo/cases.ts';
import { decodeImage, encodeChat, TransformersVlm, type VlmImage } from '../../src/core/engines/transformers/vlm.ts';
import { applyModelSource } from '../../src/core/engines/transformers/runtime.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { mirrorImage } from '../../src/core/imaging/variant-image.ts';
import { NEUROVLM_PROMPT } from '../../src/core/protocols/neurovlm/prompt.ts';
import { neuroVlmProtocol } from '../../src/core/protocols/neurovlm/protocol.ts';
import { nmbLesionProtocol } from '../../src/core/protocols/nmb/lesion.ts';
import type { Protocol } from '../../src/core/protocols/types.ts';
import { loadNodeTransformers } from '../../test/support/transformers-node.ts';
import { idefics3JsonFiles, idefics3PreprocessorConfig, json, utf8, withManifest, type ModelFile } from '../self-test-model/build.ts';
import { llamaDecoderConfig } from '../self-test-model/graphs.ts';
import { TRAILING_SPECIAL_TOKENS, byteSymbols, tokenId } from '../self-test-model/tokenizer.ts';
import { decoderModelMerged, embedTokens, visionEncoder, type DemoModelDims, type Weights } from './graphs.ts';
import { floatTensor } from '../onnx/onnx-writer.ts';
import { trainTokenizer, trainedTokenizerJson, type TrainedTokenizer } from './tokenizer.ts';
import { answerOf, lesionAnswerOf, DEMO_TRAINED_ID, DEMO_TRAINED_NAME, TRAIN_SEED, VALIDATION_SEED } from './answers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_MODEL = join(ROOT, 'public/models', DEMO_TRAINED_ID);

const dimsFor = (vocabSize: number): DemoModelDims => ({
  vocabSize,
  hidden: 128,
  heads: 4,
  headDim: 32,
  layers: 2,
  intermediate: 256,
  imageSize: DEMO_IMAGE_SIZE,
  channels: [16, 32, 64, 64],
  grid: DEMO_IMAGE_SIZE / 32,
});

/** Files every build of the model shares: configs and tokenizer (the ONNX graphs come with the weights). */
function configFiles(tok: TrainedTokenizer, d: DemoModelDims): ModelFile[] {
  const id = (t: string) => tokenId(tok.vocab, t);
  const bos = id('<|im_start|>');
  const eos = id('<end_of_utterance>');
  const pad = id('<|im_end|>');
  const imageSeqLen = d.grid * d.grid;
  const config = {
    architectures: ['Idefics3ForConditionalGeneration'],
    model_type: 'idefics3',
    image_token_id: id('<image>'),
    scale_factor: 2,
    vocab_size: d.vocabSize,
    pad_token_id: pad,
    tie_word_embeddings: false,
    text_config: { ...llamaDecoderConfig(d, { bos, eos, pad }), hidden_act: 'relu' },
    vision_config: { model_type: 'idefics3_vision', num_channels: 3, image_size: d.imageSize, patch_size: 16, hidden_size: d.channels[3] },
    'transformers.js_config': { dtype: 'fp32' },
    neuroeval: { name: DEMO_TRAINED_NAME, note: 'Trained on synthetic phantoms only. Not a medical model.' },
  };
  // One frame of 256 px, no splitting: the demo's images are already that size, so the processor never resamples.
  const preprocessor = idefics3PreprocessorConfig({ longestEdge: d.imageSize, frame: d.imageSize, split: false });
  return idefics3JsonFiles({ config, tokens: { bos, eos, pad }, preprocessor, imageSeqLen, tokenizer: trainedTokenizerJson(tok) });
}

function writeFiles(dir: string, files: readonly ModelFile[]): void {
  for (const f of files) {
    const target = join(dir, ...f.path.split('/'));
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, f.bytes);
  }
}

function renderGray(c: DemoCase): Uint8Array {
  const r = c.renders[0]!;
  return renderSlice(r.slice, r.sequence);
}

/** The request the app sends for a case under its protocol (zero-shot), with the image's PNG bytes in place. */
async function requestFor(c: BenchCase, png: Uint8Array, protocol: Protocol = neuroVlmProtocol) {
  const req = protocol.buildRequest(c, c.questions[0]!);
  return Promise.all(req.messages.map((m) => mapTurnImages(m, (): VlmImage => ({ bytes: png, mime: 'image/png' }))));
}

/** The lesion prompt's words as the chat template frames them (the same for every drawn case: no record, one image). */
function lesionPromptText(c: BenchCase): string[] {
  return nmbLesionProtocol.buildRequest(c, c.questions[0]!).messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [`${m.role === 'system' ? 'System: ' : ''}${p.text}`] : [])));
}

async function data(out: string, trainCount: number, valCount: number): Promise<void> {
  mkdirSync(out, { recursive: true });
  // Each drawn slice is asked both ways: NeuroVLM-Bench's classification and Neural-MedBench's lesion recognition.
  const sets = {
    train: { classification: drawnCases(TRAIN_SEED, trainCount), lesion: drawnCases(TRAIN_SEED, trainCount, 'lesion') },
    val: { classification: drawnCases(VALIDATION_SEED, valCount), lesion: drawnCases(VALIDATION_SEED, valCount, 'lesion') },
  };
  const answers = new Map<string, number>();
  for (const set of Object.values(sets)) {
    for (const c of set.classification) answers.set(answerOf(c.case, 0.9), (answers.get(answerOf(c.case, 0.9)) ?? 0) + 1);
    for (const c of set.lesion) answers.set(lesionAnswerOf(c.case), (answers.get(lesionAnswerOf(c.case)) ?? 0) + 1);
  }
  // The prompts' text as the chat template frames it; the answers as written.
  const prompts = 4 * (trainCount + valCount);
  const corpus = new Map<string, number>([
    [`System: ${NEUROVLM_PROMPT}`, prompts],
    ...lesionPromptText(sets.train.lesion[0]!.case).map((t): [string, number] => [t, prompts]),
    ['\nUser:', 1000],
    ['\nAssistant:', 1000],
    ...answers,
  ]);
  const t0 = performance.now();
  const tok = trainTokenizer(corpus, 3000);
  console.log(`tokenizer: ${tok.merges.length} merges, vocabulary ${tok.vocab.size} (${Math.round(performance.now() - t0)} ms)`);
  const d = dimsFor(tok.vocab.size);
  const modelDir = join(out, 'model');
  rmSync(modelDir, { recursive: true, force: true });
  writeFiles(modelDir, configFiles(tok, d));

  const runtime = await loadNodeTransformers();
  const { modelId } = applyModelSource(runtime, { kind: 'folder', location: modelDir });
  const processor = await runtime.lib.AutoProcessor.from_pretrained(modelId);
  const tokenizer = processor.tokenizer!;
  const eos = tokenId(tok.vocab, '<end_of_utterance>');
  const digitIds = Array.from({ length: 10 }, (_, i) => tokenId(tok.vocab, String(i)));

  for (const [name, set] of Object.entries(sets)) {
    const examples: unknown[] = [];
    const cases = set.classification;
    const pixels = new Uint8Array(cases.length * DEMO_IMAGE_SIZE * DEMO_IMAGE_SIZE);
    for (const [i, c] of cases.entries()) {
      const gray = renderGray(c);
      const lesionCase = set.lesion[i]!;
      if (!renderGray(lesionCase).every((v, k) => v === gray[k])) throw new Error(`${lesionCase.case.id}: not the slice of ${c.case.id}`);
      pixels.set(gray, i * gray.length);
      const png = encodePng(gray, DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray');
      const encode = async (bc: BenchCase, protocol: Protocol) => {
        const messages = await requestFor(bc, png, protocol);
        const images = await Promise.all(messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'image' ? [p.image] : []))).map((img) => decodeImage(runtime, img)));
        return encodeChat(processor, messages, images);
      };
      const { inputs } = await encode(c.case, neuroVlmProtocol);
      const ids = Array.from((inputs.input_ids as unknown as { data: BigInt64Array }).data, Number);
      if (i < 3) {
        // The processor must hand the model (gray / 255 − 0.5) / 0.5 in all three channels: what train.py computes from the stored pixels.
        const pv = (inputs as unknown as { pixel_values: { data: Float32Array; dims: number[] } }).pixel_values;
        const n = DEMO_IMAGE_SIZE * DEMO_IMAGE_SIZE;
        if (pv.data.length !== 3 * n) throw new Error(`pixel_values has ${pv.data.length} values (dims ${pv.dims.join('×')}), expected one 3×${DEMO_IMAGE_SIZE}² frame`);
        for (let k = 0; k < 3 * n; k++) {
          const want = (gray[k % n]! / 255 - 0.5) / 0.5;
          if (Math.abs(pv.data[k]! - want) > 1e-5) throw new Error(`pixel_values[${k}] = ${pv.data[k]}, expected ${want}: the processor changed the image`);
        }
      }
      const answer = answerOf(c.case, 0.9);
      const answerIds = [...tokenizer.encode(answer, { add_special_tokens: false }), eos];
      // Where the confidence's two decimals are: train.py rewrites them once the model's own precision is known.
      const marker = answer.indexOf('"diagnosis_confidence": ') + '"diagnosis_confidence": '.length;
      const before = tokenizer.encode(answer.slice(0, marker + 2), { add_special_tokens: false }).length;
      if (answerIds[before] !== digitIds[9] || answerIds[before + 1] !== digitIds[0]) throw new Error(`confidence digits not where expected in ${answer}`);
      examples.push({ task: 'classification', img: i, id: c.case.id, cls: c.case.diseaseGroup, ids, answer: answerIds, conf: before });
      const lesion = await encode(lesionCase.case, nmbLesionProtocol);
      const lesionIds = Array.from((lesion.inputs.input_ids as unknown as { data: BigInt64Array }).data, Number);
      const side = (lesionCase.case.questions[0]!.reference as { lesion: { laterality: string | null } }).lesion.laterality;
      examples.push({ task: 'lesion', img: i, id: lesionCase.case.id, cls: c.case.diseaseGroup, side, ids: lesionIds, answer: [...tokenizer.encode(lesionAnswerOf(lesionCase.case), { add_special_tokens: false }), eos] });
      if (i % 500 === 0) console.log(`${name}: ${i}/${cases.length}`);
    }
    writeFileSync(join(out, `${name}.json`), JSON.stringify({ examples }));
    writeFileSync(join(out, `${name}.u8`), pixels);
  }
  const idToBytes = Array.from({ length: tok.vocab.size }, () => '');
  const symbolByte = new Map(byteSymbols().map((symbol, byte) => [symbol, byte]));
  for (const [token, id] of tok.vocab.ids) {
    if ((TRAILING_SPECIAL_TOKENS as readonly string[]).includes(token) || id < 3) continue;
    idToBytes[id] = Buffer.from([...token].map((s) => symbolByte.get(s)!)).toString('hex');
  }
  writeFileSync(join(out, 'meta.json'), JSON.stringify({ dims: d, eos, digits: digitIds, idToBytes, classes: NVB_CLASSES }, null, 1));
  console.log(`wrote ${out}: ${trainCount} training and ${valCount} validation cases`);
}

function readWeights(dir: string): Weights {
  const index = JSON.parse(readFileSync(join(dir, 'weights.json'), 'utf8')) as Record<string, { offset: number; dims: number[] }>;
  const bin = readFileSync(join(dir, 'weights.bin'));
  const floats = new Float32Array(bin.buffer, bin.byteOffset, bin.byteLength / 4);
  return (name, dims) => {
    const t = index[name];
    if (!t) throw new Error(`weights.json has no tensor "${name}"`);
    if (t.dims.join('×') !== dims.join('×')) throw new Error(`${name}: trained shape ${t.dims.join('×')}, graph wants ${dims.join('×')}`);
    const n = dims.reduce((a, b) => a * b, 1);
    return floatTensor(dims, floats.slice(t.offset, t.offset + n));
  };
}

function build(dataDir: string, outDir: string): void {
  const meta = JSON.parse(readFileSync(join(dataDir, 'meta.json'), 'utf8')) as { dims: DemoModelDims };
  const report = JSON.parse(readFileSync(join(dataDir, 'report.json'), 'utf8')) as Record<string, unknown>;
  const w = readWeights(dataDir);
  const d = meta.dims;
  const shared = ['config.json', 'generation_config.json', 'preprocessor_config.json', 'processor_config.json', 'tokenizer.json', 'tokenizer_config.json'].map((path) => ({ path, bytes: new Uint8Array(readFileSync(join(dataDir, 'model', path))) }));
  const files: ModelFile[] = [
    ...shared,
    { path: 'README.md', bytes: utf8.encode(modelCard(d, report)) },
    { path: 'training-report.json', bytes: json(report) },
    { path: 'onnx/vision_encoder.onnx', bytes: visionEncoder(d, w) },
    { path: 'onnx/embed_tokens.onnx', bytes: embedTokens(d, w) },
    { path: 'onnx/decoder_model_merged.onnx', bytes: decoderModelMerged(d, w) },
  ];
  rmSync(outDir, { recursive: true, force: true });
  writeFiles(outDir, withManifest(files, { name: DEMO_TRAINED_NAME, modelId: DEMO_TRAINED_ID, architecture: 'Idefics3ForConditionalGeneration', note: 'Trained on synthetic phantoms only; not a medical model.' }));
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  console.log(`wrote ${outDir}: ${files.length + 1} files, ${(total / 1024 / 1024).toFixed(2)} MiB`);
}

function modelCard(d: DemoModelDims, report: Record<string, unknown>): string {
  const r = report as { trainCases?: number; valCases?: number; valAccuracy?: number; valLateralityAccuracy?: number; valLesionJsonValid?: number; seconds?: number; precision?: Record<string, number>; torch?: string };
  const fixed = (v: number | undefined) => (v === undefined ? '?' : v.toFixed(3));
  return `---
license: apache-2.0
library_name: transformers.js
pipeline_tag: image-text-to-text
tags:
  - synthetic-data
  - not-a-medical-model
---

# ${DEMO_TRAINED_NAME}

**Trained on synthetic phantoms only. It is not a medical model.** It has never seen a real
scan and must never be used on one, for any purpose: not for diagnosis, triage, screening,
teaching of clinical reading, or any decision about a person. On a real image its answers
are meaningless, however confident they look.

## What it is for

- Showing NeuroEval's whole evaluation path with a model whose answers mean something: on
  the demo's synthetic brain drawings it names the class it sees, so scores, the text-only
  ablation and the degradation curves move as they would for a real model.
- A known-answer check of the image path: if an image were scrambled on its way to the
  model (resize, channel order, normalisation, image-token placement, chat template), its
  accuracy on a held-out set would fall to chance. The browser tests assert this.
- The mirror consistency probe: asked Neural-MedBench's lesion-recognition question, it
  names the side of the lesion (the patient's side, images in radiological convention), so
  on a left–right mirrored image a consistent answer names the other side.

## Training data

Single-image cases drawn by the demo generator (src/core/demo/drawn-cases.ts):
${r.trainCases ?? '?'} training cases (seed ${TRAIN_SEED}) and ${r.valCases ?? '?'} validation cases (seed ${VALIDATION_SEED}), the
five classes (tumor, stroke, multiple sclerosis, normal, other abnormalities) in equal
measure. Every slice is asked two ways: NeuroVLM-Bench's classification prompt and
Neural-MedBench's lesion-recognition prompt. Every input was made by the app's own code:
the protocols' requests (zero-shot), the engine's chat encoding, and this folder's
processor and tokenizer. Held-out sets come from other seeds
(\`npm run demo -- --seed 7 --cases 100\`, with \`--task lesion\` for the lesion question).

The classification answer is the benchmark's JSON: modality, sequence, plane, class and
subtype from the case's labels; an ICD-10 code and a severity fixed per class (they carry no
information); and a diagnosis confidence equal to the model's own precision for that class
on the validation set, so the confidence it states is calibrated on these phantoms. The
lesion answer is the drawing's lesion: a type and location per kind of drawing, the
patient's side (left, right, bilateral, midline; null with no lesion) and the sequence.

## Results on the validation set

Diagnosis accuracy ${fixed(r.valAccuracy)} (chance 0.2). Precision per class:
${Object.entries(r.precision ?? {}).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}.
Lesion task: JSON valid ${fixed(r.valLesionJsonValid)}; the side (left, right, bilateral or midline) named correctly for ${fixed(r.valLateralityAccuracy)} of the lesions that have one.
Trained in ${r.seconds === undefined ? '?' : Math.round(r.seconds)} s on a CPU (PyTorch ${r.torch ?? '?'}); see training-report.json.

## Architecture

The transformers.js Idefics3 (SmolVLM) layout, so the app's real loading and decoding code
runs it: \`onnx/vision_encoder.onnx\` (four strided convolutions over the 256 px image, one
token per 32 px cell: ${d.grid * d.grid} image tokens of width ${d.hidden}), \`onnx/embed_tokens.onnx\`, and
\`onnx/decoder_model_merged.onnx\` (${d.layers} pre-norm attention layers, ${d.heads} heads × ${d.headDim}, ReLU MLP
of ${d.intermediate}, sinusoidal positions, KV cache). The tokenizer is a byte-level BPE with merges
learned from the prompts and the answers (vocabulary ${d.vocabSize}).

Rebuild: scripts/demo-trained/ (README there).
`;
}

async function check(cases: number, seed: number): Promise<void> {
  const runtime = await loadNodeTransformers();
  const vlm = await TransformersVlm.load(runtime, { source: { kind: 'folder', location: OUT_MODEL }, device: 'wasm' });
  const ask = async (c: BenchCase, gray: Uint8Array, protocol: Protocol) => {
    const messages = await requestFor(c, encodePng(gray, DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray'), protocol);
    const r = await vlm.generateChat(messages, { maxTokens: 192, temperature: 0, topP: 1, seed: 42 });
    const parsed = protocol.parse(r.text);
    return parsed.ok ? (parsed.value as Record<string, unknown>) : null;
  };
  let right = 0;
  let valid = 0;
  const t0 = performance.now();
  for (const c of drawnCases(seed, cases)) {
    const parsed = await ask(c.case, renderGray(c), neuroVlmProtocol);
    if (parsed) valid++;
    if (parsed?.diagnosis_name === c.case.diseaseGroup) right++;
  }
  console.log(`seed ${seed}, ${cases} cases: diagnosis accuracy ${(right / cases).toFixed(3)}, JSON valid ${(valid / cases).toFixed(3)}, ${((performance.now() - t0) / cases).toFixed(0)} ms per case (Node, wasm)`);
  // The same slices asked for the main lesion, as drawn and mirrored left to right: a lateral lesion's side must flip.
  let sided = 0;
  let sideRight = 0;
  let flipped = 0;
  let lesionValid = 0;
  for (const c of drawnCases(seed, cases, 'lesion')) {
    const gray = renderGray(c);
    const side = (c.case.questions[0]!.reference as { lesion: { laterality: string | null } }).lesion.laterality;
    const parsed = await ask(c.case, gray, nmbLesionProtocol);
    if (parsed) lesionValid++;
    if (side !== 'left' && side !== 'right') continue;
    sided++;
    if (parsed?.laterality === side) sideRight++;
    const m = mirrorImage({ width: DEMO_IMAGE_SIZE, height: DEMO_IMAGE_SIZE, channels: 1, data: gray }).data;
    const mirrored = await ask(c.case, m, nmbLesionProtocol);
    if (parsed?.laterality === side && mirrored?.laterality === (side === 'left' ? 'right' : 'left')) flipped++;
  }
  console.log(`lesion task: JSON valid ${(lesionValid / cases).toFixed(3)}; ${sided} left or right lesions: side right ${(sideRight / sided).toFixed(3)}, right and flipped under the mirror ${(flipped / sided).toFixed(3)}`);
  await vlm.dispose();
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({ args: rest, options: { out: { type: 'string' }, data: { type: 'string' }, cases: { type: 'string' }, val: { type: 'string' }, seed: { type: 'string' } }, strict: true });
  if (command === 'data') await data(resolve(values.out ?? 'demo-trained-data'), Number(values.cases ?? 3000), Number(values.val ?? 500));
  else if (command === 'build') build(resolve(values.data ?? 'demo-trained-data'), OUT_MODEL);
  else if (command === 'check') await check(Number(values.cases ?? 100), Number(values.seed ?? 7));
  else {
    console.error('Usage: npm run demo-model -- data --out <dir> | build --data <dir> | check [--cases 100] [--seed 7]');
    process.exit(1);
  }
  if (!existsSync(OUT_MODEL) && command !== 'data') process.exit(1);
}

void main();
