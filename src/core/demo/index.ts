/**
 * The bundled demo benchmark: synthetic brain images and invented cases for
 * trying the app offline. Nothing in it comes from a patient; the manifest
 * says so (`synthetic: true`) and so does every case's `meta`.
 *
 * `buildDemoDraft()` is deterministic: the same bytes, and so the same
 * content hash, on every run, machine and JavaScript engine.
 */
import type { DraftManifest, ImportDraft } from '../bundle/importer.ts';
import { encodePng } from '../imaging/png-encode.ts';
import { demoCases, type DemoCase } from './cases.ts';
import { drawnCases, type DrawnTask } from './drawn-cases.ts';
import { DEMO_IMAGE_SIZE, type SliceSpec, renderImage, renderTissueMap } from './phantom.ts';
import { DEMO_SOURCE } from './source.ts';

export { demoCases } from './cases.ts';
export { DEMO_SOURCE } from './source.ts';
export { drawnCases, type DrawnTask } from './drawn-cases.ts';
export { DEMO_IMAGE_SIZE, renderImage, renderSlice, renderTissueMap, type SliceSpec } from './phantom.ts';

const DEMO_BUNDLE_ID = 'neuroeval-demo';

const DEMO_MANIFEST: DraftManifest = {
  id: DEMO_BUNDLE_ID,
  name: 'NeuroEval demo (synthetic)',
  version: '1.0.0',
  license: 'CC0-1.0',
  description:
    'A small synthetic benchmark for trying NeuroEval. Every image and every clinical vignette in it is computer-generated ' +
    '(procedural brain drawings and invented patients); none of it comes from a patient. It is for demonstrating the tool only: ' +
    'scores on it say nothing about how a model performs on real clinical images. Cases imitate the shape of NeuroVLM-Bench ' +
    '(single-image classification), Neural-MedBench (multi-sequence differential diagnosis, lesion recognition, rationale and ' +
    'multi-round cases), multiple-choice VQA with a MediConfusion-style pair, and rubric-scored reports.',
  synthetic: true,
  source: { kind: DEMO_SOURCE },
  protocolDefaults: {},
};

/** Builds the demo benchmark: cases and PNG images, ready for `finalizeBundle`. */
export function buildDemoDraft(): ImportDraft {
  return draftOf(DEMO_MANIFEST, demoCases());
}

/**
 * A benchmark of `count` fresh cases drawn with `seed` (./drawn-cases.ts): a
 * held-out set of images no other seed produces, asked NeuroVLM-Bench's
 * classification or (task `lesion`) Neural-MedBench's lesion recognition.
 */
export function buildDrawnDraft(seed: number, count: number, task: DrawnTask = 'classification'): ImportDraft {
  const lesion = task === 'lesion';
  const manifest: DraftManifest = {
    ...DEMO_MANIFEST,
    id: lesion ? `neuroeval-demo-drawn-lesion-s${seed}` : `neuroeval-demo-drawn-s${seed}`,
    name: lesion ? `NeuroEval drawn lesion cases (synthetic, seed ${seed}, ${count} cases)` : `NeuroEval drawn demo cases (synthetic, seed ${seed}, ${count} cases)`,
    description:
      `${count} synthetic single-image cases in the style of ${lesion ? "Neural-MedBench's lesion recognition (type, location, side, sequence)" : 'NeuroVLM-Bench'}, drawn by the demo generator with seed ${seed}: ` +
      'the five classes in equal measure, lesion, position, size, sequence and plane drawn. Every image is computer-generated; ' +
      'none comes from a patient. For testing models on images they have never seen; it says nothing about clinical performance.',
    protocolDefaults: { protocol: lesion ? 'nmb-lesion' : 'neurovlm-structured' },
  };
  return draftOf(manifest, drawnCases(seed, count, task));
}

function draftOf(manifest: DraftManifest, built: readonly DemoCase[]): ImportDraft {
  const images = new Map<string, Uint8Array>();
  // Sequences of one slice share its tissue map; draw each map once.
  const maps = new Map<SliceSpec, Uint8Array>();
  for (const c of built) {
    for (const r of c.renders) {
      let map = maps.get(r.slice);
      if (!map) {
        map = renderTissueMap(r.slice, DEMO_IMAGE_SIZE);
        maps.set(r.slice, map);
      }
      images.set(r.path, encodePng(renderImage(map, DEMO_IMAGE_SIZE, r.sequence, r.slice.seed), DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray'));
    }
  }
  return {
    manifest,
    cases: built.map((c) => c.case),
    images,
    files: new Map(),
    issues: [],
    skipped: [],
  };
}
