/**
 * Runs of the bundled demo-trained model (real transformers.js on
 * onnxruntime-web wasm in Node) through the runner with its shared prompt
 * kept and several items per decode step, against the same run asked one
 * request at a time through transformers.js' own `generate`: the same
 * answers item for item, zero- and few-shot; each answer records its
 * prompt's size and the tokens it reused; a run killed or cancelled in the
 * middle of a batch resumes with every item stored exactly once.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import type { DemoCase } from '../../../../src/core/demo/case-kit.ts';
import { DEMO_IMAGE_SIZE, drawnCases, renderSlice } from '../../../../src/core/demo/index.ts';
import type { Engine } from '../../../../src/core/engines/engine.ts';
import { TransformersEngine } from '../../../../src/core/engines/transformers/transformers-engine.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { memoryRunLock, RunController } from '../../../../src/core/runner/control.ts';
import { memoryRunStore, type MemoryRunStore } from '../../../../src/core/runner/memory-store.ts';
import { planRun } from '../../../../src/core/runner/plan.ts';
import { runProtocol } from '../../../../src/core/runner/protocol-adapter.ts';
import { runRun } from '../../../../src/core/runner/runner.ts';
import type { ImageLoader, RunPlan, RunProtocol, RunStore } from '../../../../src/core/runner/types.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { ORT_WEB_DIST_URL, ort } from '../../../support/transformers-node.ts';
import { crashingStore } from './harness.ts';
import { expectOnePerItem } from './fixtures.ts';

const MODEL_DIR = fileURLToPath(new URL('../../../../public/models/demo-trained/', import.meta.url));
const SAMPLING = { temperature: 0, topP: 1, seed: 3, maxTokens: 64 };

const pngOf = (c: DemoCase) => encodePng(renderSlice(c.renders[0]!.slice, c.renders[0]!.sequence), DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray');

/** Drawn cases with their image's content hash (as an import stores them), and the loader of those images. */
function withImages(drawn: readonly DemoCase[]): { cases: BenchCase[]; images: Map<string, Uint8Array> } {
  const images = new Map<string, Uint8Array>();
  const cases = drawn.map((d) => {
    const png = pngOf(d);
    const sha256 = sha256Hex(png);
    images.set(sha256, png);
    return { ...d.case, images: d.case.images.map((im, i) => (i === 0 ? { ...im, sha256 } : im)) };
  });
  return { cases, images };
}

const queries = withImages(drawnCases(41, 7));
const exemplars = withImages(drawnCases(43, 2));
const allImages = new Map([...queries.images, ...exemplars.images]);
const loadImage: ImageLoader = async (sha256) => ({ bytes: allImages.get(sha256)!, mime: 'image/png', sha256 });

function engine(options: { cachedDecoding: boolean; batch?: number }): Engine {
  return new TransformersEngine({ runtime: { ort, wasmPaths: ORT_WEB_DIST_URL }, source: { kind: 'folder', location: MODEL_DIR }, device: 'wasm', modelId: 'demo-trained', ...options });
}

interface Session {
  plan: RunPlan;
  protocol: RunProtocol;
}

function session(fewShot: boolean): Session {
  const plan = planRun({ benchmarkId: 'drawn', models: [{ id: 'demo-trained', filesHash: '' }], sampling: SAMPLING }, queries.cases);
  return { plan, protocol: runProtocol('neurovlm-structured', fewShot ? { fewShot: exemplars.cases } : {}) };
}

async function run(s: Session, eng: Engine, store: RunStore, control?: RunController) {
  return runRun({ runId: 'r', plan: s.plan, engineFor: () => eng, protocol: s.protocol, store, images: loadImage, lock: memoryRunLock(), ...(control ? { control } : {}) });
}

/** Every stored answer's text by item key. */
const rowsOf = (store: MemoryRunStore): ResponseRecord[] => [...store.responses.values()].filter((r) => r.runId === 'r');
const texts = async (store: MemoryRunStore) => new Map(rowsOf(store).map((r) => [r.itemKey, r.rawText]));

describe('runner: shared prompt kept and items batched, on the demo-trained model', () => {
  const reference = new Map<boolean, Map<string, string>>();
  let batched: Engine;

  beforeAll(async () => {
    for (const fewShot of [false, true]) {
      const store = memoryRunStore();
      const outcome = await run(session(fewShot), engine({ cachedDecoding: false }), store);
      expect(outcome.status).toBe('done');
      reference.set(fewShot, await texts(store));
    }
    batched = engine({ cachedDecoding: true, batch: 3 });
  }, 240_000);
  afterAll(async () => {
    await batched?.unload();
  });

  for (const fewShot of [false, true]) {
    it(`gives transformers.js' own answers one by one, item for item (${fewShot ? 'few-shot' : 'zero-shot'})`, async () => {
      const store = memoryRunStore();
      const outcome = await run(session(fewShot), batched, store);
      expect(outcome).toMatchObject({ status: 'done', generated: 7, errors: 0 });
      expect(await texts(store)).toEqual(reference.get(fewShot));
      expect(new Set(reference.get(fewShot)!.values()).size).toBeGreaterThan(1);
      const rows = rowsOf(store);
      // Seven items in batches of three (3, 3, 1); every one but the first computed only its own tokens.
      expect(rows.filter((r) => r.usage.batch === 3)).toHaveLength(6);
      const reused = rows.map((r) => r.usage.prompt?.reusedTokens ?? 0);
      expect(reused.every((n) => n > 0)).toBe(true);
      expect(new Set(reused).size).toBe(1);
      if (fewShot) expect(reused[0]).toBeGreaterThan(2 * 64);
      for (const r of rows) expect(r.usage.prompt!.imageTokens).toBe(fewShot ? 3 * 64 : 64);
    }, 120_000);
  }

  it('resumes a run killed in the middle of a batch with every item stored once, answers unchanged', async () => {
    const s = session(true);
    const store = memoryRunStore();
    const saved: string[] = [];
    const recording: RunStore = { ...store, saveResponse: async (row) => (await store.saveResponse(row), void saved.push(row.itemKey)) };
    // The fifth save fails: the first batch is stored, the second is cut after its first answer.
    const first = await run(s, batched, crashingStore(recording, 4));
    expect(first.status).toBe('failed');
    expect(saved).toHaveLength(4);
    const second = await run(s, batched, recording);
    expect(second.status).toBe('done');
    expect(second.generated).toBe(3);
    expect(new Set(saved).size).toBe(saved.length);
    expectOnePerItem(rowsOf(store), 'r', s.plan.items.map((i) => i.itemKey));
    expect(await texts(store)).toEqual(reference.get(true));
  }, 120_000);

  it('resumes a run cancelled in the middle of a batch: finished answers kept, the rest asked once', async () => {
    const s = session(false);
    const store = memoryRunStore();
    const control = new RunController();
    const saved: string[] = [];
    const recording: RunStore = {
      ...store,
      saveResponse: async (row) => {
        await store.saveResponse(row);
        saved.push(row.itemKey);
        if (saved.length === 4) control.cancel();
      },
    };
    const first = await run(s, batched, recording, control);
    expect(first.status).toBe('cancelled');
    const kept = saved.length;
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(kept).toBeLessThan(7);
    const second = await run(s, batched, recording);
    expect(second).toMatchObject({ status: 'done', generated: 7 - kept });
    expect(new Set(saved).size).toBe(7);
    expectOnePerItem(rowsOf(store), 'r', s.plan.items.map((i) => i.itemKey));
    expect(await texts(store)).toEqual(reference.get(false));
  }, 120_000);
});
