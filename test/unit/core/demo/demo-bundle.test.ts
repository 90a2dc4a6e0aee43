import { unzlibSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { readZip } from '../../../../src/core/bundle/zip-read.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { finalizeBundle } from '../../../../src/core/bundle/finalize.ts';
import type { ImportDraft } from '../../../../src/core/bundle/importer.ts';
import type { BenchCase, Question, ReferenceAnswer } from '../../../../src/core/bundle/types.ts';
import { validateCase } from '../../../../src/core/bundle/validate.ts';
import {
  NVB_CLASSES,
  NVB_MODALITIES,
  NVB_PLANES,
  NVB_SEQUENCES,
  NVB_STROKE_SUBTYPES,
  NVB_TUMOR_SUBTYPES,
  demoCases,
} from '../../../../src/core/demo/cases.ts';
import { DEMO_IMAGE_SIZE, buildDemoDraft, renderImage, renderTissueMap } from '../../../../src/core/demo/index.ts';
import { isLesion } from '../../../../src/core/demo/tissues.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';

const PINNED_DIGEST = '6038d45812f8e674658e96f7dd499cb6f2912682a9202c83c6487e021048fe70';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/** Reads a PNG's header and, for 8-bit grayscale, decodes its pixels (enough to preview it). */
function readPng(bytes: Uint8Array): { width: number; height: number; bitDepth: number; colorType: number; pixels?: Uint8Array } {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(String.fromCharCode(...bytes.subarray(12, 16))).toBe('IHDR');
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  const bitDepth = bytes[24]!;
  const colorType = bytes[25]!;
  if (bitDepth !== 8 || colorType !== 0) return { width, height, bitDepth, colorType };
  const idat: Uint8Array[] = [];
  let at = 8;
  while (at < bytes.length) {
    const len = u32(bytes, at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === 'IDAT') idat.push(bytes.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const joined = new Uint8Array(idat.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of idat) {
    joined.set(c, off);
    off += c.length;
  }
  const raw = unzlibSync(joined);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (width + 1)]!;
    for (let x = 0; x < width; x++) {
      const v = raw[y * (width + 1) + 1 + x]!;
      const left = x > 0 ? pixels[y * width + x - 1]! : 0;
      const up = y > 0 ? pixels[(y - 1) * width + x]! : 0;
      if (filter === 0) pixels[y * width + x] = v;
      else if (filter === 1) pixels[y * width + x] = (v + left) & 0xff;
      else if (filter === 2) pixels[y * width + x] = (v + up) & 0xff;
      else throw new Error(`unexpected PNG filter ${filter}`);
    }
  }
  return { width, height, bitDepth, colorType, pixels };
}

function allQuestions(c: BenchCase): Question[] {
  return [...c.questions];
}

function allReferences(c: BenchCase): ReferenceAnswer[] {
  return c.questions.flatMap((q) => [q.reference, ...(q.followUps ?? []).map((f) => f.reference)]).filter((r): r is ReferenceAnswer => r !== undefined);
}

let draft: ImportDraft;

beforeAll(() => {
  draft = buildDemoDraft();
});

describe('demo benchmark: manifest', () => {
  it('is labelled synthetic everywhere', () => {
    const m = draft.manifest;
    expect(m.id).toBe('neuroeval-demo');
    expect(m.version).toBe('1.0.0');
    expect(m.name).toBe('NeuroEval demo (synthetic)');
    expect(m.license).toBe('CC0-1.0');
    expect(m.synthetic).toBe(true);
    expect(m.source).toEqual({ kind: 'neuroeval-demo' });
    expect(m.protocolDefaults).toEqual({});
    expect(m.description).toMatch(/computer-generated/);
    expect(m.description).toMatch(/none of it comes from a patient/);
    expect(m.description).toMatch(/demonstrating the tool only/);
    for (const c of draft.cases) expect(c.meta?.synthetic).toBe('true');
    for (const c of draft.cases) if (c.notes) expect(c.notes).toMatch(/^(Fictional vignette\.|虚构病例)/);
    expect(draft.files.size).toBe(0);
    expect(draft.issues).toEqual([]);
    expect(draft.skipped).toEqual([]);
  });

  it('builds every image in memory: one PNG per rendered slice and sequence', () => {
    const renders = demoCases().flatMap((c) => c.renders);
    expect(draft.images.size).toBe(renders.length);
    const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
    for (const r of renders) expect([...draft.images.get(r.path)!.subarray(0, 8)], r.path).toEqual(signature);
  });
});

describe('demo benchmark: cases', () => {
  it('has at least 40 cases with unique, readable ids', () => {
    expect(draft.cases.length).toBeGreaterThanOrEqual(40);
    const ids = draft.cases.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('passes bundle validation without errors or warnings', () => {
    for (const c of draft.cases) {
      const { issues } = validateCase(JSON.parse(JSON.stringify(c)), { file: 'cases.jsonl', field: c.id });
      expect(issues, c.id).toEqual([]);
    }
  });

  it('finalises into a bundle', () => {
    const { bundle, issues } = finalizeBundle(draft);
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(bundle?.manifest.caseCount).toBe(draft.cases.length);
    expect(bundle?.manifest.synthetic).toBe(true);
    expect(bundle?.manifest.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('covers all five NeuroVLM-Bench classes with single-image classification cases', () => {
    const cls = draft.cases.filter((c) => c.taskFamily === 'classification');
    expect(new Set(cls.map((c) => c.diseaseGroup))).toEqual(new Set(NVB_CLASSES));
    for (const c of cls) {
      expect(c.split).toBe('breadth');
      expect(c.images).toHaveLength(1);
      expect(c.questions[0]!.reference?.labels?.diagnosis_name).toBe(c.diseaseGroup);
    }
    // Several modalities, sequences and planes, and some unknown ("not scorable") labels.
    const labels = cls.map((c) => c.questions[0]!.reference!.labels!);
    expect(new Set(labels.map((l) => l.modality))).toEqual(new Set(NVB_MODALITIES));
    expect(new Set(labels.map((l) => l.specialized_sequence))).toEqual(new Set([...NVB_SEQUENCES, null]));
    expect(new Set(labels.map((l) => l.plane))).toEqual(new Set([...NVB_PLANES, null]));
    expect(labels.some((l) => l.diagnosis_name === 'tumor' && l.diagnosis_detailed === null)).toBe(true);
    expect(labels.filter((l) => l.plane === null).length).toBeGreaterThanOrEqual(2);
  });

  it('uses only allowed NeuroVLM-Bench label values', () => {
    const cls = draft.cases.filter((c) => c.taskFamily === 'classification');
    for (const c of cls) {
      const l = c.questions[0]!.reference!.labels!;
      expect(Object.keys(l).sort()).toEqual(['diagnosis_detailed', 'diagnosis_name', 'modality', 'plane', 'specialized_sequence']);
      expect(NVB_CLASSES as readonly (string | null)[]).toContain(l.diagnosis_name);
      expect([...NVB_MODALITIES, null]).toContain(l.modality);
      expect([...NVB_SEQUENCES, null]).toContain(l.specialized_sequence);
      expect([...NVB_PLANES, null]).toContain(l.plane);
      if (l.modality === 'CT') expect(l.specialized_sequence).toBeNull();
      const allowedSubtypes: readonly (string | null)[] =
        l.diagnosis_name === 'tumor' ? [...NVB_TUMOR_SUBTYPES, null] : l.diagnosis_name === 'stroke' ? [...NVB_STROKE_SUBTYPES, null] : [null];
      expect(allowedSubtypes, c.id).toContain(l.diagnosis_detailed);
      // The labels agree with the image metadata.
      const image = c.images[0]!;
      expect(image.sequence).toBe(l.modality === 'CT' ? 'CT' : l.specialized_sequence);
      expect(image.plane ?? null).toBe(l.plane);
    }
  });

  it('has Neural-MedBench depth cases in all three task families and levels', () => {
    const families = new Set(draft.cases.map((c) => c.taskFamily));
    for (const f of ['differential-diagnosis', 'lesion-recognition', 'rationale-generation', 'multi-turn', 'multiple-choice', 'classification'] as const) {
      expect(families.has(f), f).toBe(true);
    }
    const splits = new Set(draft.cases.map((c) => c.split));
    for (const s of ['breadth', 'direct', 'complex', 'multi-round']) expect(splits.has(s), s).toBe(true);
    const depth = draft.cases.filter((c) => ['direct', 'complex', 'multi-round'].includes(c.split ?? ''));
    expect(depth.length).toBeGreaterThanOrEqual(15);
    for (const c of depth) {
      expect(c.images.length, c.id).toBeGreaterThanOrEqual(2);
      expect(c.images.length, c.id).toBeLessThanOrEqual(4);
      for (const im of c.images) {
        expect(im.sequence, c.id).toBeTruthy();
        expect(im.plane, c.id).toBeTruthy();
        expect(typeof im.slice, c.id).toBe('number');
      }
      expect(typeof c.ehr?.age, c.id).toBe('number');
      expect(['male', 'female']).toContain(c.ehr?.sex);
      expect(c.ehr?.onset, c.id).toBeTruthy();
      expect(c.notes?.length ?? 0, c.id).toBeGreaterThan(40);
    }
  });

  it('gives each task family the reference it needs', () => {
    for (const c of draft.cases) {
      const ref = c.questions[0]!.reference!;
      expect(ref, c.id).toBeDefined();
      if (c.taskFamily === 'differential-diagnosis') {
        expect(ref.diagnosis, c.id).toBeTruthy();
        expect(ref.aliases?.length, c.id).toBeGreaterThan(0);
        expect(ref.differential, c.id).toHaveLength(5);
      }
      if (c.taskFamily === 'lesion-recognition') {
        expect(ref.lesion?.type, c.id).toBeTruthy();
        expect(ref.lesion?.location, c.id).toBeTruthy();
        expect(['left', 'right', 'bilateral', 'midline']).toContain(ref.lesion?.laterality);
        expect(c.images.map((i) => i.sequence)).toContain(ref.lesion?.sequence);
      }
      if (c.taskFamily === 'rationale-generation') {
        const sentences = (ref.rationale ?? '').split(/(?<=[.;])\s+(?=[A-Z])/).filter(Boolean);
        expect(sentences.length, c.id).toBeGreaterThanOrEqual(2);
        expect(sentences.length, c.id).toBeLessThanOrEqual(4);
      }
    }
    // Complex cases carry free text to compare with (BERTScore in the paper).
    for (const c of draft.cases.filter((x) => x.split === 'complex')) {
      expect(c.questions[0]!.reference!.rationale, c.id).toBeTruthy();
    }
  });

  it('has multi-round cases whose follow-ups reveal new information with their own references', () => {
    const multi = draft.cases.filter((c) => c.taskFamily === 'multi-turn');
    expect(multi.length).toBeGreaterThanOrEqual(3);
    let revealsImage = false;
    for (const c of multi) {
      expect(c.split).toBe('multi-round');
      const q = c.questions[0]!;
      expect(q.followUps?.length, c.id).toBeGreaterThanOrEqual(1);
      expect(q.followUps?.length, c.id).toBeLessThanOrEqual(2);
      for (const f of q.followUps ?? []) {
        expect(f.reference, `${c.id}/${f.id}`).toBeDefined();
        for (const i of f.images ?? []) {
          expect(i).toBeLessThan(c.images.length);
          revealsImage = true;
        }
      }
    }
    expect(revealsImage).toBe(true);
  });

  it('has multiple-choice items, a MediConfusion-style pair and a rubric with a penalty', () => {
    const mcq = draft.cases.filter((c) => c.taskFamily === 'multiple-choice');
    expect(mcq.length).toBeGreaterThanOrEqual(3);
    for (const c of mcq) {
      const q = c.questions[0]!;
      const keys = q.options!.map((o) => o.key);
      expect(['ABCD', 'ABCDE']).toContain(keys.join(''));
      expect(keys).toContain(q.reference?.answer);
    }
    const byPair = new Map<string, Question[]>();
    for (const c of draft.cases) for (const q of allQuestions(c)) if (q.pairId) byPair.set(q.pairId, [...(byPair.get(q.pairId) ?? []), q]);
    expect(byPair.size).toBeGreaterThanOrEqual(1);
    for (const [pair, qs] of byPair) {
      expect(qs, pair).toHaveLength(2);
      expect(qs[0]!.text).toBe(qs[1]!.text);
      expect(qs[0]!.reference?.answer).not.toBe(qs[1]!.reference?.answer);
    }
    const rubrics = draft.cases.flatMap((c) => allReferences(c)).filter((r) => r.rubric);
    expect(rubrics.length).toBeGreaterThanOrEqual(1);
    for (const r of rubrics) {
      expect(r.rubric!.some((i) => i.points > 0)).toBe(true);
      expect(r.rubric!.some((i) => i.points < 0)).toBe(true);
      expect(new Set(r.rubric!.map((i) => i.id)).size).toBe(r.rubric!.length);
    }
  });

  it('has a Chinese-language question, as the real Neural-MedBench does', () => {
    const zh = draft.cases.flatMap((c) => allQuestions(c)).filter((q) => q.lang === 'zh');
    expect(zh.length).toBeGreaterThanOrEqual(1);
    expect(zh.some((q) => q.text === '根据患者的症状和图片,对疾病进行诊断')).toBe(true);
    for (const c of draft.cases) for (const q of allQuestions(c)) expect(q.lang).toBeDefined();
  });

  it('spreads cases over realistic disease groups, including depth-only ones', () => {
    const groups = new Set(draft.cases.map((c) => c.diseaseGroup));
    for (const g of [...NVB_CLASSES, 'autoimmune encephalitis', 'Alzheimer disease', 'CNS infection']) expect(groups.has(g), g).toBe(true);
  });
});

describe('demo benchmark: images', () => {
  it('has bytes for every image path and no unused images', () => {
    const referenced = new Set<string>();
    for (const c of draft.cases) {
      c.images.forEach((im, i) => {
        expect(im.path).toBe(`images/${c.id}-${i + 1}.png`);
        expect(draft.images.has(im.path), im.path).toBe(true);
        referenced.add(im.path);
      });
    }
    expect([...draft.images.keys()].sort()).toEqual([...referenced].sort());
  });

  it('stores valid 8-bit grayscale PNGs of the declared size that are not blank', () => {
    for (const c of draft.cases) {
      for (const im of c.images) {
        const png = readPng(draft.images.get(im.path)!);
        expect(png.width).toBe(im.width);
        expect(png.height).toBe(im.height);
        expect(png.width).toBe(DEMO_IMAGE_SIZE);
        expect(png.bitDepth).toBe(8);
        expect(png.colorType).toBe(0);
        expect(im.mime).toBe('image/png');
        // A quick preview statistic: a head on a dark background has real contrast.
        const px = png.pixels!;
        let sum = 0;
        let max = 0;
        for (const v of px) {
          sum += v;
          if (v > max) max = v;
        }
        const mean = sum / px.length;
        expect(mean, im.path).toBeGreaterThan(15);
        expect(mean, im.path).toBeLessThan(160);
        expect(max, im.path).toBeGreaterThan(120);
        // The corner is air: nearly black.
        expect(px[0]!, im.path).toBeLessThan(20);
      }
    }
  });

  it('decodes to exactly the pixels the phantom rendered', () => {
    const c = demoCases().find((x) => x.case.id === 'direct-tumor-01')!;
    for (const r of c.renders) {
      const expected = renderImage(renderTissueMap(r.slice), DEMO_IMAGE_SIZE, r.sequence, r.slice.seed);
      expect(readPng(draft.images.get(r.path)!).pixels).toEqual(expected);
    }
  });

  it('draws lesions in abnormal cases and none in normal controls', () => {
    for (const c of demoCases()) {
      if (c.case.taskFamily !== 'classification') continue;
      const map = renderTissueMap(c.renders[0]!.slice);
      const lesionPixels = map.reduce((n, t) => n + (isLesion(t) ? 1 : 0), 0);
      if (c.case.diseaseGroup === 'normal') expect(lesionPixels, c.case.id).toBe(0);
      else if (c.case.id !== 'breadth-other-ct-axial-03') expect(lesionPixels, c.case.id).toBeGreaterThan(30); // hydrocephalus is anatomy, not a lesion
    }
  });
});

/** One digest over everything the demo generates: cases, manifest and every image's bytes. */
function draftDigest(d: ImportDraft): string {
  const lines = [JSON.stringify(d.manifest), JSON.stringify(d.cases)];
  for (const [path, bytes] of d.images) lines.push(`${path} ${sha256Hex(bytes)}`);
  return sha256Hex(lines.join('\n'));
}

describe('demo benchmark: determinism', () => {
  it('generates exactly the pinned content on this machine and engine', () => {
    // The demo must be byte-identical everywhere (its content hash is shown and compared across machines).
    // If you changed the demo on purpose: update this digest and run `npx tsx scripts/make-demo-benchmark.ts`.
    expect(draftDigest(draft)).toBe(PINNED_DIGEST);
  });

  it('produces identical cases and byte-identical images on every call', () => {
    const again = buildDemoDraft();
    expect(JSON.stringify(again.cases)).toBe(JSON.stringify(draft.cases));
    expect(JSON.stringify(again.manifest)).toBe(JSON.stringify(draft.manifest));
    expect([...again.images.keys()]).toEqual([...draft.images.keys()]);
    for (const [path, bytes] of draft.images) expect(sha256Hex(again.images.get(path)!), path).toBe(sha256Hex(bytes));
  });
});

describe('the committed demo bundle', () => {
  it('is what the generator produces now (run `npm run demo` after changing the generator)', () => {
    const zip = readFileSync(new URL('../../../../public/demo/neuroeval-demo.zip', import.meta.url));
    const manifest = JSON.parse(new TextDecoder().decode(readZip(new Uint8Array(zip), 'neuroeval-demo.zip').get('manifest.json'))) as { contentHash: string; synthetic: boolean };
    expect(manifest.synthetic).toBe(true);
    expect(finalizeBundle(buildDemoDraft()).bundle?.manifest.contentHash).toBe(manifest.contentHash);
  });
});
