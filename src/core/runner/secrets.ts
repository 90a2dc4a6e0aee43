/**
 * Secrets never leave the endpoint settings: not into a run record, its
 * provenance, a run export, a CSV, the HTML report or a log. Engine specs
 * hold no secret by type (engines/spec.ts); this is the runtime guard at the
 * edges where records are stored, read from files or written out, in case an
 * object carries more than its type says (a spread endpoint setting, an old
 * record, a hand-edited file).
 */

import { redactSecrets } from '../security/redact.ts';

/** Property names that hold credentials, compared case-insensitively. */
const SECRET_KEYS = new Set(['apikey', 'api_key', 'authorization']);

/** True for a property name that holds a credential. */
function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase());
}

/**
 * A deep copy of `value` (plain objects and arrays) without any property whose
 * name holds a credential, and with any `Bearer <token>` in its strings
 * replaced (security/redact.ts). Other values (numbers, null, class
 * instances such as Blobs) are kept as they are.
 */
export function withoutSecrets<T>(value: T): T {
  return scrub(value) as T;
}

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!isSecretKey(k)) out[k] = scrub(v);
  return out;
}
