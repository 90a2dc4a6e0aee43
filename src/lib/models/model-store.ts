/**
 * Model files on this device. Files live in Cache Storage under the URLs the
 * app itself would serve (`<base>models/<id>/<path>`), and the service worker
 * answers those URLs from this cache: a downloaded or imported model loads
 * exactly like a bundled one, with the network off.
 */

const MODELS_CACHE = 'neuroeval-models';

/** The folder URL a stored model is loaded from. */
export function modelLocation(id: string): string {
  return new URL(`models/${encodeURIComponent(id)}/`, document.baseURI).href;
}

function fileUrl(id: string, path: string): string {
  return new URL(path.split('/').map(encodeURIComponent).join('/'), modelLocation(id)).href;
}

const MIME: Record<string, string> = { json: 'application/json', onnx: 'application/octet-stream', txt: 'text/plain', md: 'text/markdown', wasm: 'application/wasm' };

export async function putModelFile(id: string, path: string, blob: Blob): Promise<void> {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const cache = await caches.open(MODELS_CACHE);
  await cache.put(fileUrl(id, path), new Response(blob, { headers: { 'Content-Type': MIME[ext] ?? 'application/octet-stream', 'Content-Length': String(blob.size) } }));
}

export async function readModelFile(id: string, path: string): Promise<Blob | null> {
  const res = await (await caches.open(MODELS_CACHE)).match(fileUrl(id, path));
  return res ? res.blob() : null;
}

export async function deleteModelFiles(id: string): Promise<number> {
  const prefix = modelLocation(id);
  const cache = await caches.open(MODELS_CACHE);
  let n = 0;
  for (const r of await cache.keys()) {
    if (r.url.startsWith(prefix)) {
      await cache.delete(r);
      n++;
    }
  }
  return n;
}
