/**
 * Finds the Chromium the tests, bench and screenshot scripts drive, and the
 * flags that give it a real (software) WebGPU adapter in headless mode.
 */
import { existsSync } from 'node:fs';

/** Flags for every launch: WebGPU on, and no background traffic to outside hosts. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-default-apps',
  '--disable-domain-reliability',
];

/** Chrome's documented flags for a real GPU in headless Linux (the smoke tests' --gpu-flags). */
export const REAL_GPU_ARGS = ['--use-angle=vulkan', '--enable-features=Vulkan', '--disable-vulkan-surface'];

/** CHROME_PATH, then Debian's chromium, then Playwright's own download; null when none exists. */
export async function findChromium(): Promise<string | null> {
  const env = process.env.CHROME_PATH;
  if (env) return existsSync(env) ? env : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    if (p && existsSync(p)) return p;
  } catch {
    // playwright-core without a downloaded browser: fall through.
  }
  return null;
}
