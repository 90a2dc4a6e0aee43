/**
 * The bundled demo-trained model through the real transformers.js code path
 * in Node (wasm): its files match its manifest, its tokenizer keeps the
 * confidence's digits apart (what its training relies on), and on a held-out
 * set drawn with a seed it never saw it names the class it sees, and asked
 * for the main lesion, names its side and the other side on the mirrored
 * image. The browser tests (test/browser/demo-trained.spec.ts,
 * consistency.spec.ts) check the same through the app.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainTokenizer } from '../../../../scripts/demo-trained/tokenizer.ts';
import { mapTurnImages } from '../../../../src/core/chat/turn.ts';
import { CATALOGUE } from '../../../../src/core/engines/catalogue.ts';
import { DEMO_IMAGE_SIZE, drawnCases, renderSlice } from '../../../../src/core/demo/index.ts';
import { TransformersVlm } from '../../../../src/core/engines/transformers/vlm.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { mirrorImage } from '../../../../src/core/imaging/variant-image.ts';
import { neuroVlmProtocol } from '../../../../src/core/protocols/neurovlm/protocol.ts';
import { nmbLesionProtocol } from '../../../../src/core/protocols/nmb/lesion.ts';
import { loadNodeTransformers } from '../../../support/transformers-node.ts';

const MODEL_DIR = fileURLToPath(new URL('../../../../public/models/demo-trained/', import.meta.url));

describe('demo-trained model', () => {
  let vlm: TransformersVlm;
  beforeAll(async () => {
    vlm = await TransformersVlm.load(await loadNodeTransformers(), { source: { kind: 'folder', location: MODEL_DIR }, device: 'wasm' });
  }, 60_000);
  afterAll(async () => {
    await vlm?.dispose();
  });

  it('ships every file its manifest lists, unchanged, under the catalogue label, marked as not a medical model', () => {
    const manifest = JSON.parse(readFileSync(`${MODEL_DIR}manifest.json`, 'utf8')) as { name: string; modelId: string; files: { path: string; bytes: number; sha256: string }[] };
    const entry = CATALOGUE.models.find((m) => m.id === 'demo-trained')!;
    expect(manifest).toMatchObject({ modelId: 'demo-trained', name: entry.label });
    expect(entry).toMatchObject({ bundled: true, runtime: 'transformers', task: 'image-text-to-text', needsShaderF16: false });
    expect(entry.label).toContain('not a medical model');
    for (const f of manifest.files) {
      const bytes = readFileSync(`${MODEL_DIR}${f.path}`);
      expect([f.path, bytes.length, createHash('sha256').update(bytes).digest('hex')]).toEqual([f.path, f.bytes, f.sha256]);
    }
    expect(readFileSync(`${MODEL_DIR}README.md`, 'utf8')).toMatch(/must never be used on one/);
  });

  it('names the class of held-out phantoms far above chance, in valid NeuroVLM-Bench JSON', async () => {
    const cases = drawnCases(11, 15);
    let right = 0;
    for (const c of cases) {
      const r = c.renders[0]!;
      const png = encodePng(renderSlice(r.slice, r.sequence), DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray');
      const request = neuroVlmProtocol.buildRequest(c.case, c.case.questions[0]!);
      const messages = await Promise.all(request.messages.map((m) => mapTurnImages(m, () => ({ bytes: png }))));
      const out = await vlm.generateChat(messages, { maxTokens: 192, temperature: 0, topP: 1, seed: 1 });
      const parsed = neuroVlmProtocol.parse(out.text);
      expect(parsed.ok, out.text).toBe(true);
      expect(out.finishReason).toBe('stop');
      if (parsed.ok && (parsed.value as Record<string, unknown>).diagnosis_name === c.case.diseaseGroup) right++;
    }
    // Chance is 0.2 (three cases of each of the five classes).
    expect(right / cases.length).toBeGreaterThanOrEqual(0.8);
  }, 60_000);

  it('names the side of held-out lesions, the patient\'s, and the other side when the image is mirrored', async () => {
    const cases = drawnCases(11, 15, 'lesion').filter((c) => ['left', 'right'].includes((c.case.questions[0]!.reference as { lesion: { laterality: string | null } }).lesion.laterality ?? ''));
    expect(cases.length).toBeGreaterThanOrEqual(6);
    const sideOf = async (c: (typeof cases)[number], gray: Uint8Array) => {
      const png = encodePng(gray, DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray');
      const request = nmbLesionProtocol.buildRequest(c.case, c.case.questions[0]!);
      const messages = await Promise.all(request.messages.map((m) => mapTurnImages(m, () => ({ bytes: png }))));
      const out = await vlm.generateChat(messages, { maxTokens: 128, temperature: 0, topP: 1, seed: 1 });
      const parsed = nmbLesionProtocol.parse(out.text);
      expect(parsed.ok, out.text).toBe(true);
      return parsed.ok ? parsed.value.laterality : null;
    };
    let named = 0;
    let flipped = 0;
    for (const c of cases) {
      const side = (c.case.questions[0]!.reference as { lesion: { laterality: string } }).lesion.laterality;
      const r = c.renders[0]!;
      const gray = renderSlice(r.slice, r.sequence);
      const said = await sideOf(c, gray);
      const mirrored = await sideOf(c, mirrorImage({ width: DEMO_IMAGE_SIZE, height: DEMO_IMAGE_SIZE, channels: 1, data: gray }).data);
      if (said === side) named++;
      if (said === side && mirrored === (side === 'left' ? 'right' : 'left')) flipped++;
    }
    // Chance for a side is at most 0.5; the model was trained on other seeds.
    expect(named / cases.length).toBeGreaterThanOrEqual(0.8);
    expect(flipped / cases.length).toBeGreaterThanOrEqual(0.75);
  }, 120_000);

  it('learns its tokenizer the same way every time, never merging a digit with anything', () => {
    const corpus = new Map([['{"diagnosis_confidence": 0.93, "severity_score": 0.5}', 40], ['System: You are a radiologist.', 40]]);
    const a = trainTokenizer(corpus, 200);
    expect(trainTokenizer(corpus, 200).merges).toEqual(a.merges);
    expect(a.merges.length).toBeGreaterThan(10);
    expect(a.merges.some(([x, y]) => /\d/.test(x + y))).toBe(false);
  });
});
