/**
 * The browser the smoke tests (smoke-webllm.ts, smoke-real.ts) drive: the
 * test flags, Chrome's real-GPU flags on request, page errors always and the
 * page's console with --verbose.
 */
import { chromium, type Browser, type ConsoleMessage, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, REAL_GPU_ARGS } from './chromium.ts';

export async function openSmokePage(executablePath: string, o: { readonly gpuFlags: boolean; readonly headed: boolean; readonly verbose: boolean }): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...(o.gpuFlags ? REAL_GPU_ARGS : [])], headless: !o.headed });
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  if (o.verbose) page.on('console', (m: ConsoleMessage) => console.log(`[browser ${m.type()}] ${m.text()}`));
  return { browser, page };
}
