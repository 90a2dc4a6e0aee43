/**
 * The benchmark importers, most specific first. The NeuroEval bundle importer
 * lives next to the bundle format (../bundle-importer.ts) and is put in front
 * of these by import-pipeline.ts.
 */
import { dicomImporter } from './dicom.ts';
import { genericImporter } from './generic.ts';
import type { Importer, InputFile } from '../bundle/importer.ts';
import { neuralMedBenchImporter } from './neural-medbench.ts';
import { neuroVlmBenchImporter } from './neurovlm-bench.ts';
import { vlmEvalKitImporter } from './vlmevalkit.ts';

export { dicomImporter } from './dicom.ts';
export { genericImporter, listColumns, suggestMapping, type GenericMapping } from './generic.ts';
export { neuralMedBenchImporter } from './neural-medbench.ts';
export { neuroVlmBenchImporter } from './neurovlm-bench.ts';
export { vlmEvalKitImporter } from './vlmevalkit.ts';

export const IMPORTERS: readonly Importer[] = [neuralMedBenchImporter, neuroVlmBenchImporter, vlmEvalKitImporter, dicomImporter, genericImporter];

/** Importers that can read these files (confidence > 0), most confident first; ties keep IMPORTERS order. */
export async function detectImporter(files: readonly InputFile[]): Promise<{ importer: Importer; confidence: number }[]> {
  const scored = await Promise.all(IMPORTERS.map(async (importer) => ({ importer, confidence: await importer.detect(files) })));
  return scored.filter((s) => s.confidence > 0).sort((a, b) => b.confidence - a.confidence);
}
