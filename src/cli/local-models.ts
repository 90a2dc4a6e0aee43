/**
 * Local judge and encoder for the CLI: the same transformers.js code the
 * scoring worker runs, on onnxruntime-web's wasm backend in Node (not
 * onnxruntime-node), loading a model folder from disk. Nothing is downloaded.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '../core/errors.ts';
import type { TransformersRuntime } from '../core/engines/transformers/runtime.ts';
import type { LocalJudge, SimilarityEncoder } from '../core/scoring/run/index.ts';

export interface Disposable {
  dispose(): Promise<void>;
}

let runtime: Promise<TransformersRuntime> | null = null;

/** `file://…/node_modules/onnxruntime-web/dist/`: the wasm of the exact build transformers.js pins. */
const ortDist = (): string => `${pathToFileURL(dirname(createRequire(import.meta.url).resolve('onnxruntime-web'))).href}/`;

async function nodeRuntime(): Promise<TransformersRuntime> {
  runtime ??= (async () => {
    const ort = await import('onnxruntime-web');
    const { loadTransformers } = await import('../core/engines/transformers/runtime.ts');
    return loadTransformers({ ort, wasmPaths: ortDist() });
  })();
  return runtime;
}

function folder(dir: string, option: string): string {
  const full = resolve(dir);
  if (!existsSync(`${full}/config.json`)) throw new InvalidInputError(`${option} ${dir}: not a model folder (no config.json in it).`, { file: dir, field: option });
  return full;
}

/** A text LLM from a folder as the local judge; its id is the folder name. */
export async function loadJudge(dir: string): Promise<LocalJudge & Disposable> {
  const location = folder(dir, '--judge');
  const { TransformersEngine } = await import('../core/engines/transformers/transformers-engine.ts');
  const ort = await import('onnxruntime-web');
  await nodeRuntime();
  const engine = new TransformersEngine({ runtime: { wasmPaths: ortDist(), ort }, source: { kind: 'folder', location }, task: 'text-generation', modelId: basename(location) });
  await engine.load();
  return { id: basename(location), engine, dispose: () => engine.unload() };
}

/** An encoder from a folder for BERTScore and cosine; its id is the folder name. */
export async function loadEncoder(dir: string): Promise<SimilarityEncoder & Disposable> {
  const location = folder(dir, '--encoder');
  const { TransformersEmbedder } = await import('../core/engines/transformers/embedder.ts');
  const { encoderFromEmbedder } = await import('../core/scoring/run/similarity.ts');
  const embedder = await TransformersEmbedder.load(await nodeRuntime(), { source: { kind: 'folder', location } });
  return { ...encoderFromEmbedder(embedder, basename(location)), dispose: () => embedder.dispose() };
}
