/**
 * A model folder's manifest: every file with its size and SHA-256. The
 * self-test model ships one; `neuroeval model-manifest <folder>` writes one
 * for an on-prem mirror or a USB copy, so downloads and imports can be
 * verified file by file.
 */
import { InvalidInputError } from '../errors.ts';

export const MODEL_MANIFEST = 'manifest.json';

export interface ModelManifestFile {
  /** Path relative to the model folder, `/`-separated, e.g. `onnx/decoder_model_merged.onnx`. */
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface ModelManifest {
  readonly files: readonly ModelManifestFile[];
  /** Free text shown to the user (e.g. the self-test model's "meaningless output" note). */
  readonly note?: string;
}

/** Checks a manifest read from a file or a mirror; names the field that is wrong. */
export function parseModelManifest(raw: unknown, file = MODEL_MANIFEST): ModelManifest {
  const where = (field: string) => ({ file, field });
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { files?: unknown }).files)) {
    throw new InvalidInputError('The model manifest must be an object with a "files" list.', where('files'));
  }
  const files = (raw as { files: unknown[] }).files.map((f, i): ModelManifestFile => {
    const o = f as Record<string, unknown>;
    if (typeof o?.path !== 'string' || !o.path || o.path.startsWith('/') || o.path.split('/').includes('..')) {
      throw new InvalidInputError('Each file needs a relative "path" inside the model folder.', where(`files[${i}].path`));
    }
    if (typeof o.bytes !== 'number' || !Number.isInteger(o.bytes) || o.bytes < 0) throw new InvalidInputError('"bytes" must be a whole number.', where(`files[${i}].bytes`));
    if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256)) throw new InvalidInputError('"sha256" must be 64 lower-case hex digits.', where(`files[${i}].sha256`));
    return { path: o.path, bytes: o.bytes, sha256: o.sha256 };
  });
  const note = (raw as { note?: unknown }).note;
  return { files, ...(typeof note === 'string' ? { note } : {}) };
}

/** What a model folder is, read from its config.json (`model_type`, `architectures`). */
export function describeModelConfig(configText: string, file = 'config.json'): { modelType: string; architecture?: string } {
  let config: { model_type?: unknown; architectures?: unknown };
  try {
    config = JSON.parse(configText) as typeof config;
  } catch {
    throw new InvalidInputError('config.json is not valid JSON.', { file });
  }
  if (typeof config.model_type !== 'string') throw new InvalidInputError('config.json has no "model_type": is this a transformers model folder?', { file, field: 'model_type' });
  const arch = Array.isArray(config.architectures) && typeof config.architectures[0] === 'string' ? config.architectures[0] : undefined;
  return { modelType: config.model_type, ...(arch ? { architecture: arch } : {}) };
}
