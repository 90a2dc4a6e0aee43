/**
 * Public model hosts the user chose to download weights from (an explicit,
 * per-host opt-in on the Models page). Allowing one adds it, and the servers
 * it sends files from, to the network policy; the page reloads once so the
 * service worker puts them into the Content Security Policy.
 */
import { DEFAULT_MODEL_HOST } from '../../core/engines/catalogue.ts';
import { validateCspOrigin } from '../../core/security/csp.ts';
import { getAllowedOrigins, originsInPolicy, setAllowedOrigins } from './allowed-origins.ts';

const PENDING = 'neuroeval.pendingHostDownload';

/**
 * Where a host serves large files from after a redirect: for Hugging Face,
 * its LFS and Xet storage servers (a download is refused by the policy
 * without them).
 */
const FILE_SERVERS: Readonly<Record<string, readonly string[]>> = {
  [new URL(DEFAULT_MODEL_HOST).origin]: ['https://cdn-lfs.hf.co', 'https://cdn-lfs-us-1.hf.co', 'https://cdn-lfs.huggingface.co', 'https://cas-bridge.xethub.hf.co'],
};

/** Every origin a download from `host` contacts. */
export function hostOrigins(host: string): string[] {
  const origin = validateCspOrigin(new URL(host).origin);
  return [origin, ...(FILE_SERVERS[origin] ?? [])];
}

/**
 * The user's opt-in for `host`: its origins join the network policy (the
 * allowed origins are the record of the opt-in). Returns true when the page
 * must reload before the host can be reached (its origins are not in this
 * page's policy yet).
 */
export async function allowPublicHost(host: string): Promise<boolean> {
  const origins = hostOrigins(host);
  const allowed = await getAllowedOrigins();
  const missing = origins.filter((o) => !allowed.includes(o));
  if (missing.length) await setAllowedOrigins([...allowed, ...missing]);
  const inPolicy = originsInPolicy();
  return origins.some((o) => o !== location.origin && !inPolicy.includes(o));
}

/** A download to start after the reload that applies the policy. */
export function rememberPendingDownload(entryId: string, host: string): void {
  sessionStorage.setItem(PENDING, JSON.stringify({ entryId, host }));
}

export function takePendingDownload(): { entryId: string; host: string } | null {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  try {
    const v = raw ? (JSON.parse(raw) as { entryId?: unknown; host?: unknown }) : null;
    return v && typeof v.entryId === 'string' && typeof v.host === 'string' ? { entryId: v.entryId, host: v.host } : null;
  } catch {
    return null;
  }
}
