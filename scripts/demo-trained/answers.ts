/**
 * What the demo-trained model is taught to answer: the NeuroVLM-Bench JSON
 * (the nine fields of the benchmark's prompt, in its order) for a drawn case,
 * and the lesion JSON of Neural-MedBench's lesion-recognition prompt for the
 * same slice asked that way (the side is the patient's, so a mirrored image
 * must flip it).
 * The ICD-10 code (null for normal and other abnormalities, as the prompt asks)
 * and the severity are fixed per class: the phantoms carry no
 * information about them, and the model is not taught to pretend otherwise.
 */
import type { BenchCase } from '../../src/core/bundle/types.ts';

export const DEMO_TRAINED_ID = 'demo-trained';
export const DEMO_TRAINED_NAME = 'Demo-trained model (synthetic phantoms only; not a medical model)';
/** The demo generator's seeds for training and validation data; held-out sets use any other seed. */
export const TRAIN_SEED = 1000;
export const VALIDATION_SEED = 1001;

const ICD10: Record<string, string | null> = {
  glioma: 'C71.9',
  meningioma: 'D32.9',
  pituitary_tumor: 'D35.2',
  tumor: 'D43.2',
  ischemic: 'I63.9',
  hemorrhagic: 'I61.9',
  stroke: 'I64',
  'multiple sclerosis': 'G35',
  normal: null,
  'other abnormalities': null,
};
const SEVERITY: Record<string, number> = { tumor: 0.7, stroke: 0.8, 'multiple sclerosis': 0.5, normal: 0, 'other abnormalities': 0.4 };

/** The answer as the model writes it; `confidence` with two decimals (train.py rewrites its digits). */
export function answerOf(c: BenchCase, confidence: number): string {
  const labels = (c.questions[0]?.reference as { labels?: Record<string, string | null> } | undefined)?.labels ?? {};
  const cls = labels.diagnosis_name ?? 'normal';
  const detailed = labels.diagnosis_detailed ?? null;
  const icd = ICD10[detailed ?? cls] ?? ICD10[cls] ?? null;
  const s = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
  return (
    `{"modality": ${s(labels.modality ?? null)}, "specialized_sequence": ${s(labels.specialized_sequence ?? null)}, "plane": ${s(labels.plane ?? null)}, ` +
    `"diagnosis_name": ${s(cls)}, "diagnosis_detailed": ${s(detailed)}, "icd10_code": ${s(icd)}, ` +
    `"severity_score": ${SEVERITY[cls]!.toFixed(1)}, "diagnosis_confidence": ${confidence.toFixed(2)}, "severity_confidence": 0.5}`
  );
}

/** The lesion-recognition answer as the model writes it, in the prompt's field order: the drawing's lesion. */
export function lesionAnswerOf(c: BenchCase): string {
  const lesion = (c.questions[0]?.reference as { lesion?: Record<string, string | null> } | undefined)?.lesion;
  if (!lesion) throw new Error(`${c.id}: not a lesion-recognition case`);
  const s = (v: string | null | undefined) => (v === null || v === undefined ? 'null' : JSON.stringify(v));
  return `{"lesion_type": ${s(lesion.type)}, "location": ${s(lesion.location)}, "laterality": ${s(lesion.laterality)}, "sequence": ${s(lesion.sequence)}}`;
}
