/**
 * What model files take on this device, read from Cache Storage: NeuroEval's
 * model cache per model folder (model-store.ts), and WebLLM's own caches as a
 * whole. Sizes come from each stored response's Content-Length (written when
 * the file was stored), else from reading the body.
 */

const MODELS_CACHE = 'neuroeval-models';

export interface CachedModelUse {
  /** The model's id (its folder under `models/`), or the cache's name for WebLLM's caches. */
  readonly id: string;
  readonly source: 'neuroeval' | 'webllm';
  readonly files: number;
  readonly bytes: number;
}

async function sizeOf(res: Response | undefined): Promise<number> {
  if (!res) return 0;
  const header = Number(res.headers.get('Content-Length'));
  return Number.isFinite(header) && header > 0 ? header : (await res.blob()).size;
}

/** The model id of a file URL in NeuroEval's cache: the folder after `models/`. */
function modelIdOf(url: string): string {
  const path = new URL(url).pathname;
  const at = path.lastIndexOf('/models/');
  return decodeURIComponent(path.slice(at + '/models/'.length).split('/')[0] ?? '');
}

/** Bytes per stored model, largest first; empty where the browser has no Cache Storage. */
export async function cachedModelUse(): Promise<CachedModelUse[]> {
  if (typeof caches === 'undefined') return [];
  const byId = new Map<string, CachedModelUse>();
  const add = (id: string, source: CachedModelUse['source'], bytes: number) => {
    const prev = byId.get(`${source}:${id}`) ?? { id, source, files: 0, bytes: 0 };
    byId.set(`${source}:${id}`, { ...prev, files: prev.files + 1, bytes: prev.bytes + bytes });
  };
  for (const name of await caches.keys()) {
    const source = name === MODELS_CACHE ? 'neuroeval' : name.startsWith('webllm') ? 'webllm' : null;
    if (!source) continue;
    const cache = await caches.open(name);
    for (const req of await cache.keys()) add(source === 'neuroeval' ? modelIdOf(req.url) : name, source, await sizeOf(await cache.match(req)));
  }
  return [...byId.values()].sort((a, b) => b.bytes - a.bytes);
}
