/**
 * The Content Security Policy the app ships with.
 *
 * By default every fetch, script, worker and wasm module must come from the
 * app's own origin. Extra `connect-src` hosts (a model mirror, an on-prem
 * inference endpoint) are added only when configured, and each one is listed
 * where the user can see it.
 */

interface CspOptions {
  /** Extra origins the app may fetch from, e.g. `https://models.hospital.local`. */
  readonly connectSrc?: readonly string[];
}

/** Checks that a configured host is an origin (scheme + host [+ port]) and nothing broader. */
export function validateCspOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new Error(`"${origin}" is not a URL. Give an origin such as https://models.hospital.local`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`"${origin}" must start with https:// or http://`);
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`"${origin}" must be an origin only (no path, query or credentials): ${url.origin}`);
  }
  return url.origin;
}

/** Builds the policy string for a `<meta http-equiv="Content-Security-Policy">` tag. */
export function buildCsp(options: CspOptions = {}): string {
  const connect = ["'self'", ...(options.connectSrc ?? []).map(validateCspOrigin)];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    // wasm-unsafe-eval lets WebAssembly compile (onnxruntime, WebLLM) without allowing JS eval.
    'script-src': ["'self'", "'wasm-unsafe-eval'"],
    'worker-src': ["'self'"],
    // Svelte sets element styles at run time; style attributes need 'unsafe-inline'. Styles cannot run code.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Case images are shown from blob: URLs made from IndexedDB and data: URLs made on the page.
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'connect-src': connect,
    'manifest-src': ["'self'"],
    'media-src': ["'self'", 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'none'"],
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}
