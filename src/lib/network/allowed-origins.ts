/**
 * Hosts the user allowed the app to contact: an on-prem model mirror or
 * inference endpoint. They are stored in the database and handed to the
 * service worker, which adds them to the page's Content Security Policy on
 * the next load. Nothing is allowed by default.
 */
import { validateCspOrigin } from '../../core/security/csp.ts';
import { repos } from '../storage/app-db.ts';

const SETTING = 'network.allowedOrigins';

export async function getAllowedOrigins(): Promise<string[]> {
  return (await repos()).settings.get<string[]>(SETTING, []);
}

/** Origins the page's current CSP lets it connect to, besides its own. */
export function originsInPolicy(): string[] {
  const meta = document.querySelector<HTMLMetaElement>('meta[http-equiv="Content-Security-Policy"]');
  const directive = meta?.content.split(';').map((d) => d.trim()).find((d) => d.startsWith('connect-src'));
  return directive ? directive.split(/\s+/).slice(1).filter((s) => s !== "'self'") : [];
}

async function tellServiceWorker(origins: string[]): Promise<boolean> {
  const sw = navigator.serviceWorker?.controller;
  if (!sw) return false;
  return new Promise<boolean>((resolve) => {
    const onMessage = (e: MessageEvent) => {
      if ((e.data as { type?: string } | null)?.type === 'ALLOWED_ORIGINS_SET') {
        navigator.serviceWorker.removeEventListener('message', onMessage);
        resolve(true);
      }
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    sw.postMessage({ type: 'SET_ALLOWED_ORIGINS', origins });
    setTimeout(() => resolve(false), 3000);
  });
}

/**
 * Saves the list and passes it to the service worker. Returns whether the
 * policy can change (a service worker is active); the page must reload.
 */
export async function setAllowedOrigins(origins: readonly string[]): Promise<boolean> {
  const clean = [...new Set(origins.map(validateCspOrigin))];
  await (await repos()).settings.set(SETTING, clean);
  return tellServiceWorker(clean);
}
