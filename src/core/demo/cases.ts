/**
 * All cases of the synthetic demo benchmark, in a fixed order: breadth
 * (NeuroVLM-Bench style classification), depth (Neural-MedBench style
 * reasoning), then multiple choice and rubric items.
 */
import type { DemoCase } from './case-kit.ts';
import { breadthCases } from './cases-breadth.ts';
import { depthCases } from './cases-depth.ts';
import { vqaCases } from './cases-vqa.ts';

export type { DemoCase, DemoRender } from './case-kit.ts';
export { NVB_CLASSES, NVB_MODALITIES, NVB_PLANES, NVB_SEQUENCES, NVB_STROKE_SUBTYPES, NVB_TUMOR_SUBTYPES } from './cases-breadth.ts';

export function demoCases(): DemoCase[] {
  return [...breadthCases(), ...depthCases(), ...vqaCases()];
}
