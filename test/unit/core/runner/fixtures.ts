/** Shared fakes for the runner tests: a small benchmark, a protocol, an engine, images. */
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { imagesThenText, textTurn, turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import type { Engine, EngineInfo, GenerateRequest, GenerateResult } from '../../../../src/core/engines/engine.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';
import type { ImageRef } from '../../../../src/core/protocols/types.ts';
import type { ImageLoader, RunModel, RunProtocol, RunSpec } from '../../../../src/core/runner/types.ts';

const img = (name: string) => ({ path: `images/${name}.png`, sha256: sha256Hex(name), mime: 'image/png' });

/** 3 cases, 4 questions: c1 (1 image, 2 questions), c2 (2 images), c3 (no images, other split). */
export const CASES: readonly BenchCase[] = [
  {
    id: 'c1', split: 'test', taskFamily: 'multiple-choice', modality: 'MRI', diseaseGroup: 'tumor',
    images: [img('a')],
    questions: [
      { id: 'q1', text: 'Which lesion?', options: [{ key: 'A', text: 'glioma' }, { key: 'B', text: 'abscess' }] },
      { id: 'q2', text: 'Which sequence?' },
    ],
  },
  { id: 'c2', split: 'test', taskFamily: 'differential-diagnosis', modality: 'CT', diseaseGroup: 'stroke', images: [img('b'), img('c')], questions: [{ id: 'q1', text: 'Diagnosis?' }] },
  { id: 'c3', split: 'dev', taskFamily: 'open-question', modality: 'MRI', diseaseGroup: 'normal', images: [], notes: 'A 40-year-old.', questions: [{ id: 'q1', text: 'Normal?' }] },
];

export const SAMPLING = { temperature: 0.7, topP: 0.9, seed: 42, maxTokens: 64 };

export const MODELS: readonly RunModel[] = [
  { id: 'model-a', filesHash: 'files-a' },
  { id: 'model-b', filesHash: 'files-b' },
];

/** 4 questions × 2 models × 3 variants × 2 samples = 48 items. */
export const SPEC: RunSpec = {
  benchmarkId: 'bench',
  models: MODELS,
  variants: ['none', 'text-only', 'degrade:blur:2'],
  samples: 2,
  sampling: SAMPLING,
};

/** A protocol's reference to image `index` of `kase` (the runner loads it by its sha256). */
export function refOf(kase: BenchCase, index: number): ImageRef {
  const image = kase.images[index]!;
  return { caseId: kase.id, index, path: image.path, sha256: image.sha256!, ...(image.mime ? { mime: image.mime } : {}) };
}

export const protocol: RunProtocol = {
  id: 'fake-protocol',
  version: '1',
  templateHash: 'tpl-hash',
  buildRequest: (kase, question) => [
    textTurn('system', 'You are a neuroradiologist.'),
    imagesThenText(
      kase.images.map((_, i) => refOf(kase, i)),
      `${question.text}${kase.notes ? `\n${kase.notes}` : ''}`,
    ),
  ],
  parse: (raw) => (raw.startsWith('answer') ? { ok: true, value: { answer: raw } } : { ok: false, error: 'no answer' }),
};

export const loadImage: ImageLoader = async (sha256, variant) => {
  const bytes = new TextEncoder().encode(`${sha256}|${variant}`);
  return { bytes, mime: 'image/png', sha256: sha256Hex(bytes) };
};

/** Shared event log of every fake engine: `load:<id>`, `generate:<id>`, `unload:<id>`. */
export type EngineLog = string[];

export type Responder = (req: GenerateRequest, modelId: string, signal: AbortSignal | undefined) => GenerateResult | Promise<GenerateResult>;

export const answer = (text: string, finishReason: GenerateResult['finishReason'] = 'stop'): GenerateResult => ({
  text,
  finishReason,
  usage: { promptTokens: 10, completionTokens: 20, ttftMs: 5, prefillTps: 100, decodeTps: 40, totalMs: 500 },
});

export const defaultResponder: Responder = (req, modelId) => {
  const last = req.messages.at(-1)!;
  return answer(`answer ${modelId} seed=${req.sampling.seed} images=${turnImages(last).length} ${turnText(last)}`);
};

export class FakeEngine implements Engine {
  loaded = false;
  constructor(
    readonly modelId: string,
    readonly log: EngineLog,
    private readonly responder: Responder = defaultResponder,
    readonly info: EngineInfo = { runtime: 'transformers', runtimeVersion: '4.3.1', modelId, device: 'webgpu' },
  ) {}
  async load(): Promise<EngineInfo> {
    this.log.push(`load:${this.modelId}`);
    this.loaded = true;
    return this.info;
  }
  async generate(req: GenerateRequest, options?: { signal?: AbortSignal }): Promise<GenerateResult> {
    if (!this.loaded) throw new Error(`${this.modelId} not loaded`);
    this.log.push(`generate:${this.modelId}`);
    return this.responder(req, this.modelId, options?.signal);
  }
  async unload(): Promise<void> {
    this.log.push(`unload:${this.modelId}`);
    this.loaded = false;
  }
}

/** An `engineFor` over fake engines sharing one log. */
export function fakeEngines(responder?: Responder, info?: (modelId: string) => EngineInfo) {
  const log: EngineLog = [];
  const engineFor = (modelId: string) => new FakeEngine(modelId, log, responder, info?.(modelId));
  const count = (kind: string) => log.filter((e) => e.startsWith(`${kind}:`)).length;
  return { log, engineFor, count };
}

/** A clock that ticks 10 ms per read. */
export function clock(start = 1_000) {
  let t = start;
  return () => (t += 10);
}

/** Asserts the run holds exactly one response per planned item, with the derived ids. */
export function expectOnePerItem(rows: Iterable<{ id: string; runId: string; itemKey: string }>, runId: string, itemKeys: readonly string[]): void {
  const mine = [...rows].filter((r) => r.runId === runId);
  const keys = mine.map((r) => r.itemKey).sort();
  if (keys.length !== itemKeys.length || keys.join('\n') !== [...itemKeys].sort().join('\n')) {
    throw new Error(`expected one response per item: ${keys.length} rows for ${itemKeys.length} items`);
  }
  for (const r of mine) if (r.id !== `${runId}/${r.itemKey}`) throw new Error(`unexpected response id ${r.id}`);
}
