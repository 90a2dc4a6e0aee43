/**
 * Writes the NeuroVLM-Bench parity inputs: harness result files (the layout
 * `run_async.py` writes and `evaluate_detailed.py` reads) whose answers carry
 * every trigger on which NeuroEval's own scoring and the benchmark's
 * evaluator used to disagree, drawn from the benchmark's real image index.
 *
 *   npx tsx scripts/parity/make-neurovlm-results.ts <image_mapping.csv> <out-folder>
 *
 * Then run the benchmark's own evaluator on them with
 * `scripts/parity/neurovlm-evaluator.py` (docs/reference-values.md says how);
 * the files and the evaluator's figures are committed under
 * test/fixtures/neurovlm-parity/. Seeded: the same index gives the same files.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../src/core/random/mulberry32.ts';
import { parseDelimited } from '../../src/core/text/delimited.ts';

type Row = Record<'dataset' | 'file_path' | 'class' | 'subclass' | 'modality' | 'modality_subtype' | 'plane', string>;

function readIndex(path: string): Row[] {
  // File paths in the index may hold commas inside quotes: read it as the importer does.
  return parseDelimited(readFileSync(path, 'utf8'), ',', path).rows.map((r) => r.values as Row);
}

const rand = mulberry32(20261124);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const chance = (p: number): boolean => rand() < p;

/** A stratified sample: `perDataset` rows of each source dataset, "other abnormalities" always among them. */
function sample(rows: readonly Row[], perDataset: number): Row[] {
  const out: Row[] = [];
  for (const d of [...new Set(rows.map((r) => r.dataset))].sort()) {
    const pool = rows.filter((r) => r.dataset === d);
    const other = pool.filter((r) => r.class === 'other abnormalities');
    for (let i = 0; i < perDataset; i++) out.push(i < 3 && other.length ? pick(other) : pick(pool));
  }
  return out;
}

/** A model's habits: how often it is right, and which realistic slips it makes. */
interface Habits {
  readonly right: number;
  readonly british: number;
  readonly coronal: number;
  readonly noneText: number;
  readonly parseFailure: number;
  readonly failedCall: number;
}

const CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'];
const SUBTYPES = ['glioma', 'meningioma', 'pituitary tumor', 'schwannoma', 'ischemic', 'hemorrhagic', 'neurocytoma', 'papilloma', 'medulloblastoma', 'glioblastoma', 'astrocytoma', 'metastasis', 'abscess'];
const BRITISH: Readonly<Record<string, string>> = { tumor: 'tumour', stroke: 'ischaemic stroke', hemorrhagic: 'haemorrhagic', ischemic: 'ischaemic', 'pituitary tumor': 'pituitary tumour' };

function britishOf(x: string): string {
  return BRITISH[x] ?? x;
}

function classAnswer(gold: Row, h: Habits): unknown {
  if (chance(h.noneText)) return pick(['none', 'None', 'n/a', null, 'undetermined']);
  const c = chance(h.right) ? gold.class : pick(CLASSES);
  if (chance(h.british)) return c === 'stroke' && gold.subclass === 'hemorrhagic' ? 'haemorrhagic stroke' : britishOf(c);
  if (chance(0.05)) return pick(['Brain Tumor', 'Tumor', 'ischemic stroke', 'brain mass', 'cerebral atrophy', 'Multiple_Sclerosis', 'multiplesclerosis']);
  return chance(0.5) ? c : c.toUpperCase();
}

function subtypeAnswer(gold: Row, h: Habits): unknown {
  if (!gold.subclass) return chance(0.7) ? null : pick(['none', 'n/a', 'normal', 'other', 'lesion']);
  if (chance(h.noneText)) return pick(['none', 'n/a', null]);
  const s = chance(h.right) ? gold.subclass : pick(SUBTYPES);
  if (chance(h.british)) return britishOf(s);
  if (chance(0.08)) return pick(['Glioblastoma', 'metastatic carcinoma, possibly meningioma', 'hemorrhagic stroke', 'intracerebral hemorrhage', 'pilocytic astrocytoma', 'Pituitary adenoma', 'neurocytoma (central)']);
  return s === 'neurocitoma' ? 'neurocytoma' : s === 'papiloma' ? 'papilloma' : s === 'meduloblastoma' ? 'medulloblastoma' : s;
}

function modalityAnswer(gold: Row, h: Habits): unknown {
  if (chance(h.noneText / 2)) return pick(['none', 'n/a', null]);
  const m = chance(h.right + 0.1) ? gold.modality : gold.modality === 'CT' ? 'MRI' : 'CT';
  return m === 'MRI' ? pick(['MRI', 'MR', 'mri', 'MRI scan']) : pick(['CT', 'ct', 'CT scan']);
}

function sequenceAnswer(gold: Row, h: Habits): unknown {
  if (gold.modality === 'CT') return pick([null, null, 'none', 'n/a', 'not applicable', 'non-contrast']);
  if (chance(h.noneText)) return pick(['none', 'n/a', null]);
  const s = chance(h.right) ? gold.modality_subtype || 'T1' : pick(['T1', 'T2', 'FLAIR', 'T1C+', 'DWI']);
  return pick([s, s === 'T1C+' ? 'T1 post-contrast' : s === 'T2' ? 'T2-weighted' : s, s.toLowerCase()]);
}

function planeAnswer(gold: Row, h: Habits): unknown {
  if (chance(h.coronal)) return 'coronal';
  if (chance(h.noneText)) return pick(['none', 'n/a', null]);
  const p = chance(h.right + 0.1) ? gold.plane || 'axial' : pick(['axial', 'sagittal']);
  return chance(0.1) ? p.toUpperCase() : p;
}

function confidence(): unknown {
  return chance(0.85)
    ? Math.round(rand() * 100) / 100
    : pick<unknown>(['0.9', ' 0.75 ', true, 'inf', '90%', null, 85, 'high', 1.2, -0.1, '1_0e-1']);
}

interface Options {
  readonly model: string;
  readonly habits: Habits;
  /** Ground truth as this file writes it: the harness copies CSV cells. */
  readonly metadata: (r: Row) => Record<string, unknown>;
}

function record(r: Row, i: number, o: Options): Record<string, unknown> {
  const h = o.habits;
  const input = { image_path: `../../dataset/${r.file_path}`, model_requested: o.model, metadata: o.metadata(r) };
  const id = `${o.model.replace(/\W+/g, '_')}_${String(i).padStart(4, '0')}`;
  if (chance(h.failedCall)) return { experiment_id: id, input, output: { status: 'error', parsed_response: null, error: 'HTTP 429: rate limited' }, api_response: null };
  const api: Record<string, unknown> = { model: o.model, prompt_tokens: 1200 + Math.floor(rand() * 300), completion_tokens: 80 + Math.floor(rand() * 60) };
  if (chance(0.8)) api.latency_ms = Math.round(800 + rand() * 4000);
  else if (chance(0.5)) api.latency_s = Number((0.8 + rand() * 4).toFixed(3));
  if (chance(h.parseFailure)) {
    const raw = 'The image shows an axial MRI with a mass; diagnosis: tumour (glioma), confidence high';
    return { experiment_id: id, input, output: { status: 'success', parsed_response: { error: 'JSON parsing failed: Expecting value: line 1 column 1 (char 0)', raw_response: raw }, error: null }, api_response: api };
  }
  const answer: Record<string, unknown> = {
    modality: modalityAnswer(r, h),
    plane: planeAnswer(r, h),
    diagnosis_name: classAnswer(r, h),
    diagnosis_detailed: subtypeAnswer(r, h),
    icd10_code: r.class === 'normal' ? pick([null, null, 'Z03.89']) : pick(['C71.9', 'I63.9', 'G35', null]),
    severity_score: Math.round(rand() * 10) / 10,
    diagnosis_confidence: confidence(),
    severity_confidence: Math.round(rand() * 100) / 100,
    specialized_sequence: sequenceAnswer(r, h),
  };
  if (chance(0.03)) delete answer.plane;
  return { experiment_id: id, input, output: { status: 'success', parsed_response: answer, error: null }, api_response: api };
}

const GOLD = (r: Row): Record<string, unknown> => ({
  dataset: r.dataset,
  class: r.class,
  // The case: a ground-truth subtype that the benchmark normalises to "undetermined".
  subclass: r.class === 'other abnormalities' ? 'other abnormalities' : r.subclass,
  modality: r.modality,
  modality_subtype: r.modality_subtype,
  axial_plane: r.plane,
});

const MODELS: readonly Omit<Options, 'metadata'>[] = [
  { model: 'medgemma_4b', habits: { right: 0.7, british: 0.1, coronal: 0.08, noneText: 0.05, parseFailure: 0.05, failedCall: 0.03 } },
  { model: 'google/gemma-3-27b-it', habits: { right: 0.6, british: 0.02, coronal: 0.15, noneText: 0.1, parseFailure: 0.02, failedCall: 0.05 } },
  { model: 'qwen25vl_32b', habits: { right: 0.8, british: 0.15, coronal: 0.03, noneText: 0.02, parseFailure: 0.08, failedCall: 0 } },
];

function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

function main(): void {
  const [indexPath, outDir] = process.argv.slice(2);
  if (!indexPath || !outDir) {
    console.error('usage: make-neurovlm-results.ts <image_mapping.csv> <out-folder>');
    process.exit(2);
  }
  const rows = sample(readIndex(indexPath), 24);
  mkdirSync(outDir, { recursive: true });
  const mixed = MODELS.flatMap((m) => rows.map((r, i) => record(r, i, { ...m, metadata: GOLD })));
  writeFileSync(join(outDir, 'results-mixed.jsonl'), jsonl(mixed));

  // Edge cases the evaluator reads with Python's json and float(): a NaN ground truth (kept, as
  // "undetermined"), a NaN confidence (ECE, Brier and AUROC NaN), a NaN latency (median NaN),
  // Unicode whitespace, booleans and strings where numbers belong.
  const few = rows.filter((_, i) => i % 6 === 0);
  const edge = few.map((r, i) => record(r, i, { model: 'medgemma_27b', habits: MODELS[0]!.habits, metadata: GOLD }));
  const lines = edge.map((rec) => JSON.stringify(rec));
  const patched = lines.map((line, i) => {
    if (i === 1) return line.replace(/"axial_plane":"[^"]*"/, '"axial_plane":NaN');
    if (i === 2) return line.replace(/"diagnosis_confidence":[^,}]*/, '"diagnosis_confidence":"nan"');
    if (i === 3) return line.replace(/"diagnosis_name":("[^"]*"|null)/, '"diagnosis_name":"\\u00a0Tumor\\u2003"');
    if (i === 4) return line.replace(/"modality_subtype":"[^"]*"/, '"modality_subtype":"None"');
    if (i === 5) return line.replace(/"latency_ms":\d+/, '"latency_ms":true');
    if (i === 6) return line.replace(/"prompt_tokens":\d+/, '"prompt_tokens":"1_500"');
    return line;
  });
  const second = few.map((r, i) => record(r, i, { model: 'medgemma_4b', habits: MODELS[2]!.habits, metadata: GOLD }));
  const secondLines = second.map((rec, i) => (i === 2 ? JSON.stringify(rec).replace(/"latency_ms":\d+/, '"latency_ms":NaN') : JSON.stringify(rec)));
  writeFileSync(join(outDir, 'results-edge.jsonl'), [...patched, ...secondLines].join('\n') + '\n');
  console.log(`wrote ${mixed.length} + ${patched.length + secondLines.length} records to ${outDir}`);
}

main();
