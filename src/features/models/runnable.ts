import type { ModelRecord } from '../../core/models/record.ts';

/** A model the app can run: the bundled self-test model, or one stored on this device. */
export interface RunnableModel {
  readonly id: string;
  readonly label: string;
  /** Absolute URL of the model folder (served from the build or from the models cache). */
  readonly location: string;
  readonly record?: ModelRecord;
  /** The dtype per ONNX session on each device, from the catalogue entry's files as the stored folder holds them. */
  readonly dtypes?: Readonly<Partial<Record<'wasm' | 'webgpu', Readonly<Record<string, string>>>>>;
  /** Which weights each device loads of the stored files, in words (and where the folder lacked the device's own file). */
  readonly weightsText?: string;
  /** Runs on WebLLM: tested in the WebLLM panel, not by the transformers.js check. */
  readonly webllm?: boolean;
}
