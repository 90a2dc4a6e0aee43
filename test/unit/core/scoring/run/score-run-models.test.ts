/**
 * Run scoring with the real local models: the self-test encoder (BERT
 * layout) for BERTScore and cosine, and the self-test text LLM as judge,
 * both through transformers.js on onnxruntime-web's wasm backend in Node,
 * exactly the code the scoring worker runs. Their weights are random, so the
 * assertions are about what holds for any encoder (identical text scores 1)
 * and for any judge (an unreadable reply stays undecided and is recorded).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import { TransformersEmbedder } from '../../../../../src/core/engines/transformers/embedder.ts';
import { TransformersEngine } from '../../../../../src/core/engines/transformers/transformers-engine.ts';
import { encoderFromEmbedder, scoreRun } from '../../../../../src/core/scoring/run/index.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import { ORT_WEB_DIST_URL, loadNodeTransformers, ort } from '../../../../support/transformers-node.ts';

const modelDir = (id: string) => fileURLToPath(new URL(`../../../../../public/models/${id}/`, import.meta.url));
const TIMEOUT_MS = 60_000;
const REFERENCE = 'Ring enhancing lesion with central necrosis and surrounding oedema in the left frontal lobe: glioblastoma.';

const cases: BenchCase[] = [
  { id: 'rat', taskFamily: 'rationale-generation', images: [], questions: [{ id: 'q1', text: 'Explain.', reference: { rationale: REFERENCE } }] },
  { id: 'rat2', taskFamily: 'rationale-generation', images: [], questions: [{ id: 'q1', text: 'Explain.', reference: { rationale: 'Symmetric T2 hyperintensity of both thalami after cardiac arrest.' } }] },
  { id: 'dd', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q1', text: 'Diagnosis?', reference: { diagnosis: 'Cerebral abscess' } }] },
];

function answer(caseId: string, sample: number, parsed: unknown): ResponseRecord {
  const itemKey = itemKeyOf({ caseId, questionId: 'q1', modelId: 'm', variant: 'none', sample });
  return {
    id: `r/${itemKey}`, runId: 'r', itemKey, caseId, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample, rawText: JSON.stringify(parsed), parsed, parseError: null,
    usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
  };
}

let embedder: TransformersEmbedder;
beforeAll(async () => {
  embedder = await TransformersEmbedder.load(await loadNodeTransformers(), { source: { kind: 'folder', location: modelDir('self-test-embed') } });
}, TIMEOUT_MS);
afterAll(async () => {
  await embedder?.dispose();
});

describe('run scoring with the self-test encoder and judge (wasm, Node)', () => {
  it('scores rationales with BERTScore and cosine, named by the encoder; identical text scores 1', async () => {
    const encoder = encoderFromEmbedder(embedder, 'neuroeval/self-test-embed');
    const r = await scoreRun(
      { protocolId: 'auto', cases, responses: [answer('rat', 0, { text: REFERENCE }), answer('rat', 1, { text: 'Normal scan; no lesion.' }), answer('rat2', 0, { text: 'Hypoxic injury.' })] },
      { encoder, idf: true },
    );
    const [same, other] = r.items;
    expect(same!.primary).toBe('bertscore.f');
    expect(same!.metrics['bertscore.f']).toMatchObject({ source: 'encoder', sourceId: 'neuroeval/self-test-embed' });
    expect(same!.metrics['bertscore.f']!.value).toBeCloseTo(1, 5);
    expect(same!.metrics.cosine!.value).toBeCloseTo(1, 5);
    for (const key of ['bertscore.p', 'bertscore.r', 'bertscore.f', 'cosine']) {
      const v = other!.metrics[key]!.value!;
      expect(Number.isFinite(v)).toBe(true);
      expect(v).toBeLessThan(0.9999);
    }
    const f = r.summary.arms[0]!.metrics.find((m) => m.metric === 'bertscore.f')!;
    // Two questions, one of them sampled twice: the interval resamples questions; the per-sample view counts three answers.
    expect(f).toMatchObject({ n: 2, samples: 3, encoder: 'neuroeval/self-test-embed', ciMethod: 'question-bootstrap', perSample: { n: 3, ciMethod: 'bootstrap' } });
    expect(r.config.encoder).toBe('neuroeval/self-test-embed');
  }, TIMEOUT_MS);

  it('rescales BERTScore with a baseline exactly as (raw − b) ÷ (1 − b), and refuses a baseline of 1', async () => {
    const encoder = encoderFromEmbedder(embedder, 'neuroeval/self-test-embed');
    const input = { protocolId: 'auto', cases, responses: [answer('rat', 0, { text: 'Normal scan; no lesion.' })] };
    const raw = await scoreRun(input, { encoder });
    const baseline = { precision: 0.3, recall: 0.4, f: 0.35 };
    const rescaled = await scoreRun(input, { encoder, baseline });
    const rawF = raw.items[0]!.metrics['bertscore.f']!.value!;
    expect(rescaled.items[0]!.metrics['bertscore.f']!.value).toBeCloseTo((rawF - 0.35) / 0.65, 10);
    expect(rescaled.items[0]!.metrics['bertscore.p']!.value).toBeCloseTo((raw.items[0]!.metrics['bertscore.p']!.value! - 0.3) / 0.7, 10);
    expect(rescaled.config.bertscore).toEqual({ idf: false, baseline, layer: { used: 2, layers: 2, bertScore: null, model: null }, batchSize: 64 });
    await expect(scoreRun(input, { encoder, baseline: { precision: 1, recall: 0, f: 0 } })).rejects.toMatchObject({ code: 'INVALID_INPUT', location: { field: 'baseline' } });
  }, TIMEOUT_MS);

  it('asks the self-test text model as judge; its unreadable reply is recorded and stays undecided', async () => {
    const engine = new TransformersEngine({ runtime: { wasmPaths: ORT_WEB_DIST_URL, ort }, source: { kind: 'folder', location: modelDir('self-test-text') }, task: 'text-generation', modelId: 'neuroeval/self-test-text' });
    await engine.load();
    try {
      const hypotheses = [{ rank: 1, diagnosis: 'Toxoplasmosis', confidence: 0.5, evidence: null }];
      const r = await scoreRun({ protocolId: 'auto', cases, responses: [answer('dd', 0, { hypotheses })] }, { judge: { id: 'neuroeval/self-test-text', engine }, taxonomy: false });
      const v = r.items[0]!.verdicts[0]!;
      expect(v).toMatchObject({ source: 'judge', decidedBy: 'neuroeval/self-test-text', equivalent: null });
      expect(typeof v.raw).toBe('string');
      expect(v.promptHash).toMatch(/^[0-9a-f]{24}$/);
      expect(r.items[0]!.metrics['pass@1']).toEqual({ value: null, source: 'judge', sourceId: 'neuroeval/self-test-text' });
      expect(r.summary.judgeCalls).toBe(1);
    } finally {
      await engine.unload();
    }
  }, TIMEOUT_MS);
});
