import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, describeDtypes, f32Alternative, sessionDtypes, weightsFor, willItFit, type MachineFacts } from '../../../../src/core/engines/catalogue.ts';

interface ModelPage {
  readonly repo: string;
  readonly revision: string;
  readonly url: string;
  readonly complete: boolean;
  /** The last file seen of an alphabetical listing cut short: the list is whole up to it. */
  readonly through?: string;
  readonly files: readonly string[];
}
const PAGES = (JSON.parse(readFileSync(new URL('../../../fixtures/model-pages.json', import.meta.url), 'utf8')) as { pages: ModelPage[] }).pages;

const GB = 1024 ** 3;
const laptop: MachineFacts = { webgpu: true, shaderF16: true, maxBufferSize: 4 * GB, maxStorageBufferBindingSize: 2 * GB, storageFreeBytes: 50 * GB, deviceMemoryGB: 16 };
const swiftshader: MachineFacts = { webgpu: true, shaderF16: false, maxBufferSize: GB, maxStorageBufferBindingSize: GB, storageFreeBytes: 10 * GB };
const entry = (id: string) => CATALOGUE.models.find((m) => m.id === id)!;

describe('model catalogue', () => {
  it('has unique ids, the self-test model, a WebLLM VLM and the fields every entry needs', () => {
    const ids = CATALOGUE.models.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(entry('self-test')).toMatchObject({ label: 'Self-test (random weights)', bundled: true, images: true });
    expect(CATALOGUE.models.some((m) => m.runtime === 'webllm' && m.images)).toBe(true);
    for (const m of CATALOGUE.models) {
      expect(m.vramMB).toBeGreaterThan(0);
      expect(m.contextLength).toBeGreaterThan(0);
      expect(m.licence).toBeTruthy();
      if (!m.bundled) expect(m.sources[0]).toMatch(/^https:\/\//);
      // An f16 quantisation without the flag would fail at shader compilation, after the download.
      if (/f16/.test(m.quantisation)) expect(m.needsShaderF16).toBe(true);
    }
  });

  it('has a bundled self-test model for every task, each shipped in public/models/<id>/ with its manifest', () => {
    const selfTests = CATALOGUE.models.filter((m) => m.selfTest);
    expect(selfTests.map((m) => [m.id, m.task]).sort()).toEqual([
      ['self-test', 'image-text-to-text'],
      ['self-test-embed', 'feature-extraction'],
      ['self-test-text', 'text-generation'],
    ]);
    expect(entry('self-test-text')).toMatchObject({ label: 'Self-test text model (random weights)', bundled: true, images: false, runtime: 'transformers' });
    expect(entry('self-test-embed')).toMatchObject({ label: 'Self-test encoder (random weights)', bundled: true, images: false, runtime: 'transformers' });
    for (const m of selfTests) {
      expect(m).toMatchObject({ bundled: true, downloadBytes: 0, sources: [], modelId: `neuroeval/${m.id}` });
      const manifest = JSON.parse(readFileSync(new URL(`../../../../public/models/${m.id}/manifest.json`, import.meta.url), 'utf8')) as { modelId: string; name: string };
      expect(manifest).toMatchObject({ modelId: m.id, name: m.label });
    }
  });

  it('refuses f16 models without shader-f16 before any download, and says what to choose', () => {
    const v = willItFit(entry('phi-3.5-vision-q4f16'), swiftshader);
    expect(v.fits).toBe(false);
    expect(v.problems[0]).toMatch(/lacks shader-f16\. Choose Phi-3\.5 vision instruct \(q4f32\), which computes in fp32\./);
    expect(willItFit(entry('phi-3.5-vision-q4f32'), swiftshader).fits).toBe(true);
  });

  it('checks free storage, WebGPU for WebLLM, and warns about memory', () => {
    expect(willItFit(entry('gemma-3-4b'), { ...laptop, storageFreeBytes: GB }).problems[0]).toMatch(/larger than the free storage/);
    expect(willItFit(entry('smollm2-360m-q4f32'), { ...laptop, webgpu: false }).problems[0]).toMatch(/needs WebGPU/);
    expect(willItFit(entry('phi-3.5-vision-q4f32'), { ...laptop, deviceMemoryGB: 8 }).warnings[0]).toMatch(/6\.9 GB of GPU memory/);
    expect(willItFit(entry('self-test'), { ...swiftshader, storageFreeBytes: 0 }).fits).toBe(true);
    expect(willItFit(entry('smolvlm-256m'), laptop)).toEqual({ fits: true, problems: [], warnings: [] });
  });

  it('names a source page for every downloadable entry, and the exact files where it lists them', () => {
    for (const m of CATALOGUE.models.filter((x) => !x.bundled)) {
      expect(m.sources.length, m.id).toBeGreaterThan(0);
      expect(m.sources.every((u) => u.startsWith('https://huggingface.co/')), m.id).toBe(true);
      if (m.source) {
        expect(m.sources, m.id).toContain(m.source.page);
        expect(m.source.revision, m.id).not.toBe('');
      }
    }
  });

  it('has the medical VLM of the seed paper, runnable without shader-f16, with its terms', () => {
    const med = CATALOGUE.models.find((m) => /MedGemma/.test(m.label))!;
    expect(med).toMatchObject({ runtime: 'transformers', task: 'image-text-to-text', needsShaderF16: false, purpose: 'vlm-under-test' });
    expect(med.gated).toMatch(/Health AI Developer Foundations/);
    expect(willItFit(med, swiftshader).problems).toEqual([]);
    expect(sessionDtypes(med, 'webgpu')).toEqual({ vision_encoder: 'q4', embed_tokens: 'q4', decoder_model_merged: 'q4' });
  });

  it('has a text judge for each runtime and an encoder', () => {
    const judges = CATALOGUE.models.filter((m) => m.purpose === 'judge' && !m.bundled && m.task === 'text-generation');
    expect(new Set(judges.map((m) => m.runtime))).toEqual(new Set(['transformers', 'webllm']));
    expect(CATALOGUE.models.some((m) => m.purpose === 'encoder' && !m.bundled && m.task === 'feature-extraction')).toBe(true);
  });

  it('never advises a build that does not exist: an f16-only model names its fp32 sibling or says there is none', () => {
    for (const m of CATALOGUE.models.filter((x) => x.needsShaderF16)) {
      const problem = willItFit(m, swiftshader).problems.find((p) => p.includes('shader-f16'))!;
      const alt = f32Alternative(m);
      if (alt) {
        expect(CATALOGUE.models).toContain(alt);
        expect(alt.needsShaderF16).toBe(false);
        expect(problem).toContain(`Choose ${alt.label}`);
      } else expect(problem).toContain('No fp32 build of this model is in the catalogue');
    }
    expect(f32Alternative(entry('smolvlm-256m-q4f16'))?.id).toBe('smolvlm-256m');
    expect(f32Alternative(entry('smolvlm-500m'))).toBeNull();
  });

  it("lists ONNX files under the names transformers.js loads for each session's dtype", () => {
    const suffix: Record<string, string> = { fp32: '', fp16: '_fp16', q4: '_q4', q4f16: '_q4f16', q8: '_quantized', int8: '_int8', uint8: '_uint8', bnb4: '_bnb4' };
    for (const m of CATALOGUE.models) {
      for (const f of m.source?.files ?? []) {
        if (f.part === 'config') continue;
        expect(f.dtype, `${m.id} ${f.path}`).toBeDefined();
        expect(f.path, `${m.id} ${f.path}`).toMatch(new RegExp(`^onnx/${f.part}${suffix[f.dtype!]}\\.onnx(_data(_\\d+)?)?$`));
      }
    }
    expect(sessionDtypes(entry('smolvlm-256m'), 'webgpu')).toEqual({ vision_encoder: 'fp32', embed_tokens: 'fp32', decoder_model_merged: 'q4' });
    expect(sessionDtypes(entry('smolvlm-256m'), 'wasm')).toEqual({ vision_encoder: 'fp32', embed_tokens: 'fp32', decoder_model_merged: 'q8' });
  });

  it('gives every transformers.js entry weights for WASM and for WebGPU: an 8-bit decoder on WASM wherever the model page lists one (f16 builds are for WebGPU)', () => {
    const eightBit = /_(quantized|int8|uint8)\.onnx$/;
    for (const m of CATALOGUE.models.filter((x) => x.runtime === 'transformers' && x.source)) {
      const wasm = weightsFor(m, 'wasm')!;
      const webgpu = weightsFor(m, 'webgpu')!;
      expect(wasm, m.id).not.toBeNull();
      expect(webgpu, m.id).not.toBeNull();
      const page = PAGES.find((p) => p.repo === m.source!.repo && p.revision === m.source!.revision);
      if (!page) continue;
      // Every weight file the catalogue lists as seen is on the page (as far as the page was read).
      const covered = (path: string) => page.through === undefined || path <= page.through;
      for (const f of m.source!.files) {
        if (f.dtype && !f.unverified && f.path.endsWith('.onnx') && covered(f.path)) expect(page.files, `${m.id}: ${f.path} (${page.url})`).toContain(f.path);
      }
      // The decoder WASM loads is 8-bit where the page has an 8-bit decoder; otherwise it is no 4-bit file when the page has the fp32 one.
      const decoder = ['decoder_model_merged', 'model'].find((p) => p in wasm.dtype)!;
      const pageHas8Bit = page.files.some((f) => f.startsWith(`onnx/${decoder}_`) && eightBit.test(f));
      // An f16 build needs shader-f16, a GPU feature: on the CPU its fp32-math sibling is the one to run.
      if (m.needsShaderF16) expect(f32Alternative(m) ?? { runtime: 'none' }, m.id).toMatchObject({ runtime: 'transformers' });
      else if (pageHas8Bit) expect(['q8', 'int8', 'uint8'], m.id).toContain(wasm.dtype[decoder]);
      else if (page.complete && page.files.includes(`onnx/${decoder}.onnx`)) expect(wasm.dtype[decoder], m.id).toBe('fp32');
      // WebGPU's decoder is 4-bit (real WebGPU kernels); an encoder is small enough for its 8-bit file on both.
      if (m.task !== 'feature-extraction') expect(['q4', 'q4f16'], m.id).toContain(webgpu.dtype[decoder]);
    }
  });

  it('chooses from what a folder holds: the device\'s own file, else the other device\'s, and says which', () => {
    const smol = entry('smolvlm-256m');
    const all = smol.source!.files.map((f) => f.path);
    expect(weightsFor(smol, 'wasm', all)).toMatchObject({ dtype: { decoder_model_merged: 'q8' }, substituted: [], summary: 'fp32 vision encoder and embeddings; q8 decoder' });
    const onlyQ4 = all.filter((f) => f !== 'onnx/decoder_model_merged_quantized.onnx');
    expect(weightsFor(smol, 'wasm', onlyQ4)).toMatchObject({ dtype: { decoder_model_merged: 'q4' }, substituted: [{ part: 'decoder_model_merged', dtype: 'q4', wanted: 'q8' }] });
    expect(weightsFor(smol, 'webgpu', onlyQ4)).toMatchObject({ dtype: { decoder_model_merged: 'q4' }, substituted: [] });
    // A part the folder holds no file of keeps the device's own, so the runtime names the file it lacks.
    expect(weightsFor(smol, 'webgpu', all.filter((f) => !f.includes('decoder_model_merged')))).toMatchObject({ dtype: { decoder_model_merged: 'q4' }, missing: ['decoder_model_merged'], substituted: [] });
    expect(weightsFor(smol, 'wasm', all.filter((f) => f !== 'onnx/vision_encoder.onnx'))).toMatchObject({ dtype: { vision_encoder: 'fp32' }, missing: ['vision_encoder'] });
    expect(weightsFor(entry('self-test'), 'wasm')).toBeNull();
    expect(describeDtypes({ model: 'fp32' })).toBe('fp32 model');
  });
});
