/** A model on this device as the database's `models` table keeps it. */
import type { Timestamp } from '../model/answer.ts';

interface ModelFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** How a model came onto this device: the on-prem mirror ('catalogue'), its public host, a folder import, or bundled. */
/** How a model came onto this device: the on-prem mirror ('catalogue'), its public host, a folder import, or bundled. */
type ModelSource = 'catalogue' | 'public host' | 'imported' | 'self-test';

export interface ModelRecord {
  id: string;
  /** Inference runtime that loads this model (e.g. `'webllm'`, `'transformers'`). */
  runtime: string;
  /** The runtime's own identifier for the model. */
  modelId: string;
  label: string;
  sizeBytes: number;
  files: ModelFile[];
  source: ModelSource;
  addedAt: Timestamp;
}
