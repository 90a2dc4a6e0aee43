/**
 * Run presets: a form filled in for a purpose. The newcomer's demo run
 * (Home → "Start a demo run") asks the bundled demo-trained model the demo
 * benchmark's classification cases under the NeuroVLM-Bench protocol it was
 * trained on, which it answers in well under a minute on a laptop's CPU.
 */
import type { BenchmarkRecord, CaseRecord } from '../../core/bundle/records.ts';
import { DEMO_SOURCE } from '../../core/demo/source.ts';

export type RunPresetId = 'demo';

export interface RunPreset {
  readonly id: RunPresetId;
  /** The benchmark it runs on. */
  readonly benchmark: (b: Pick<BenchmarkRecord, 'source'>) => boolean;
  readonly models: readonly string[];
  readonly protocolId: string;
  /** Task families to tick (those the benchmark has). */
  readonly taskFamilies: readonly string[];
  readonly name: string;
}

export const DEMO_PRESET: RunPreset = {
  id: 'demo',
  benchmark: (b) => b.source === DEMO_SOURCE,
  models: ['demo-trained'],
  protocolId: 'neurovlm-structured',
  taskFamilies: ['classification'],
  name: 'Demo: the demo-trained model on the classification cases',
};

const PRESETS: Readonly<Record<RunPresetId, RunPreset>> = { demo: DEMO_PRESET };

/** The preset a route segment names, or null. */
export function presetNamed(id: string | undefined): RunPreset | null {
  return id !== undefined && id in PRESETS ? PRESETS[id as RunPresetId] : null;
}

/** The form's case filters for a preset, keeping only values the benchmark's cases have. */
export function presetFilters(preset: RunPreset, cases: readonly Pick<CaseRecord, 'taskFamily'>[]): { split: string[]; taskFamily: string[]; diseaseGroup: string[]; modality: string[] } {
  const have = new Set<string>(cases.map((c) => c.taskFamily));
  return { split: [], taskFamily: preset.taskFamilies.filter((t) => have.has(t)), diseaseGroup: [], modality: [] };
}
