/**
 * transformers.js in Node on onnxruntime-web's wasm backend, as in the
 * browser, instead of the onnxruntime-node build it would pick by itself.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';
import { loadTransformers, type TransformersRuntime } from '../../src/core/engines/transformers/runtime.ts';

/** `file://…/node_modules/onnxruntime-web/dist/`: the wasm files of the exact build transformers.js pins. */
export const ORT_WEB_DIST_URL = `${pathToFileURL(dirname(createRequire(import.meta.url).resolve('onnxruntime-web'))).href}/`;

export { ort };

export function loadNodeTransformers(): Promise<TransformersRuntime> {
  return loadTransformers({ ort, wasmPaths: ORT_WEB_DIST_URL });
}
