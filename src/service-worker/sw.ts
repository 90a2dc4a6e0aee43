/// <reference lib="webworker" />
/**
 * NeuroEval's service worker: precaches every file of the build (JS, CSS,
 * wasm, icons, demo data) so the app opens with the network off, answers
 * from that cache first, and adds cross-origin-isolation headers so WASM
 * threads work even on static hosts that cannot set headers.
 *
 * This file is self-contained (no imports): the build transpiles it and
 * replaces the manifest placeholder below with the list of built files.
 */
export {};
declare const self: ServiceWorkerGlobalScope;

interface PrecacheEntry {
  /** Path relative to the service worker's scope. */
  readonly url: string;
  /** Content hash: a changed file changes the cache name, which makes the browser install an update. */
  readonly rev: string;
  readonly bytes: number;
}
interface PrecacheManifest {
  readonly buildId: string;
  readonly version: string;
  readonly commit: string;
  readonly entries: readonly PrecacheEntry[];
}

declare const __PRECACHE_MANIFEST__: PrecacheManifest;
const MANIFEST: PrecacheManifest = __PRECACHE_MANIFEST__;
const CACHE_PREFIX = 'neuroeval-precache-';
/** Model files downloaded from a mirror or imported from a folder, keyed by their URL under `models/`. */
const MODELS_CACHE = 'neuroeval-models';
/** Settings the worker itself needs (origins the user allowed), as JSON responses. */
const CONFIG_CACHE = 'neuroeval-config';
const ALLOWED_ORIGINS_KEY = 'allowed-origins';
const CACHE = `${CACHE_PREFIX}${MANIFEST.buildId}`;
const SCOPE = new URL(self.registration.scope);
const INDEX = new URL('index.html', SCOPE).href;
const PRECACHED = new Set(MANIFEST.entries.map((e) => new URL(e.url, SCOPE).href));

self.addEventListener('install', (event) => {
  event.waitUntil(precache());
});

async function precache(): Promise<void> {
  const cache = await caches.open(CACHE);
  // Sequential in small groups: a precache of ~100 files must not flood a slow on-prem server.
  const urls = [...PRECACHED];
  for (let i = 0; i < urls.length; i += 8) {
    await Promise.all(
      urls.slice(i, i + 8).map(async (url) => {
        const res = await fetch(url, { cache: 'reload' });
        if (!res.ok) throw new Error(`precache: ${url} answered ${res.status}`);
        // Stored with the isolation headers, so a hit is answered as stored: a response built anew for each
        // request loses the compiled code Chromium keeps beside a script cached at install, and every worker
        // and page chunk was compiled again on each load.
        await cache.put(url, isolate(res));
      }),
    );
  }
}

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(CACHE_PREFIX) && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  const data = event.data as { type?: string } | null;
  if (data?.type === 'SKIP_WAITING') {
    void self.skipWaiting();
  } else if (data?.type === 'SET_ALLOWED_ORIGINS') {
    const origins = ((data as { origins?: unknown }).origins as unknown[] | undefined)?.filter((o): o is string => typeof o === 'string' && /^https?:\/\/[^/\s;']+$/.test(o)) ?? [];
    event.waitUntil(
      (async () => {
        const cache = await caches.open(CONFIG_CACHE);
        await cache.put(new URL(ALLOWED_ORIGINS_KEY, SCOPE).href, new Response(JSON.stringify(origins), { headers: { 'Content-Type': 'application/json' } }));
        event.source?.postMessage({ type: 'ALLOWED_ORIGINS_SET', origins });
      })(),
    );
  } else if (data?.type === 'GET_STATUS') {
    event.waitUntil(
      (async () => {
        const cache = await caches.open(CACHE);
        const keys = await cache.keys();
        const cached = keys.filter((k) => PRECACHED.has(k.url)).length;
        const bytes = MANIFEST.entries.reduce((n, e) => n + e.bytes, 0);
        event.source?.postMessage({
          type: 'STATUS',
          buildId: MANIFEST.buildId,
          version: MANIFEST.version,
          commit: MANIFEST.commit,
          cached,
          total: PRECACHED.size,
          bytes,
        });
      })(),
    );
  }
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.href.startsWith(SCOPE.href)) return;
  if (request.mode === 'navigate') {
    // Hash routing means the only documents are the scope root and index.html.
    const path = url.origin + url.pathname;
    if (path === SCOPE.href || path === INDEX) event.respondWith(fromCache(INDEX, request).then(withAllowedOrigins));
    return;
  }
  const key = url.origin + url.pathname;
  if (PRECACHED.has(key)) event.respondWith(fromCache(key, request));
  else if (url.href.startsWith(MODELS_PREFIX)) event.respondWith(fromModels(key, request));
});

const MODELS_PREFIX = new URL('models/', SCOPE).href;

/** Model files the user downloaded or imported: served from the models cache, so they load offline. */
async function fromModels(key: string, request: Request): Promise<Response> {
  const hit = await (await caches.open(MODELS_CACHE)).match(key);
  return isolate(hit ?? (await fetch(request)));
}

/** Origins the user allowed in Settings (a mirror, an on-prem endpoint). */
async function allowedOrigins(): Promise<string[]> {
  const res = await (await caches.open(CONFIG_CACHE)).match(new URL(ALLOWED_ORIGINS_KEY, SCOPE).href);
  return res ? ((await res.json()) as string[]) : [];
}

/** Adds the allowed origins to the page's connect-src; nothing else in the policy changes. */
async function withAllowedOrigins(res: Response): Promise<Response> {
  const origins = await allowedOrigins();
  if (origins.length === 0 || !(res.headers.get('Content-Type') ?? '').includes('text/html')) return res;
  const html = await res.text();
  const patched = html.replace("connect-src 'self'", `connect-src 'self' ${origins.join(' ')}`);
  return new Response(patched, { status: res.status, statusText: res.statusText, headers: res.headers });
}

async function fromCache(key: string, request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  // A cache filled by an earlier worker of the same build may hold entries without the headers.
  if (hit && isolated(hit)) return hit;
  return isolate(hit ?? (await fetch(request)));
}

const isolated = (res: Response): boolean => res.headers.get('Cross-Origin-Embedder-Policy') === 'require-corp' && res.headers.get('Cross-Origin-Opener-Policy') === 'same-origin';

/**
 * Adds COOP/COEP so the page is cross-origin isolated (SharedArrayBuffer, WASM threads).
 * Every script the app loads is same-origin, so require-corp blocks nothing of ours.
 */
function isolate(res: Response): Response {
  if (res.status === 0 || res.type === 'opaque') return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
