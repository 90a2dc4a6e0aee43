#!/usr/bin/env node
/**
 * A small static server for the built app: what `npm start` runs, what the
 * browser tests serve from, and a reference for on-prem servers. It sends
 * `.wasm` as application/wasm, has NO single-page-app fallback (a missing file
 * is a 404, never index.html), and sends the cross-origin-isolation headers.
 *
 * Usage: node scripts/serve.mjs [--root dist] [--port 4173] [--host 127.0.0.1] [--base /]
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.zip': 'application/zip',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * @param {{ root: string, base?: string, port?: number, host?: string, isolation?: boolean, cors?: boolean }} options
 *   `cors`: answer any origin (what an on-prem model mirror must do for the app to download from it).
 * @returns {Promise<{ url: string, close(): Promise<void>, setRoot(root: string): void }>}
 */
export function startServer(options) {
  let root = resolve(options.root);
  const base = options.base ?? '/';
  const isolation = options.isolation ?? true;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let path = decodeURIComponent(url.pathname);
    if (!path.startsWith(base)) return notFound(res);
    path = path.slice(base.length);
    if (path === '' || path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep)) return notFound(res);
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return notFound(res);
    }
    if (!stat.isFile()) return notFound(res);
    const headers = {
      'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(stat.size),
      // The HTML and the service worker must be revalidated so updates are seen; hashed assets can be cached.
      'Cache-Control': /\/assets\//.test(`/${path}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    if (isolation) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      headers['Cross-Origin-Resource-Policy'] = options.cors ? 'cross-origin' : 'same-origin';
    }
    if (options.cors) headers['Access-Control-Allow-Origin'] = '*';
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : options.port;
      resolvePromise({
        url: `http://${options.host ?? '127.0.0.1'}:${port}${base}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
        setRoot: (r) => {
          root = resolve(r);
        },
      });
    });
  });
}

function notFound(res) {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Not found');
}

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = arg('root', 'dist');
  try {
    statSync(join(root, 'index.html'));
  } catch {
    console.error(`No build found in "${root}". Run "npm run build" first (or use "npm start", which builds).`);
    process.exit(1);
  }
  const server = await startServer({
    root,
    base: arg('base', process.env.NEUROEVAL_BASE ?? '/'),
    port: Number(arg('port', process.env.PORT ?? '4173')),
    host: arg('host', '127.0.0.1'),
  });
  console.log(`NeuroEval is being served at ${server.url}  (Ctrl+C to stop)`);
}
