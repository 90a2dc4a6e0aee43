import { defineConfig } from '@playwright/test';

/**
 * Browser tests run the production build in headless Chromium with a real
 * (software) WebGPU adapter. Each spec serves `dist/` itself through
 * test/support/app-server.ts, so specs can block the network or swap builds.
 */
export default defineConfig({
  testDir: 'test/browser',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // Two cores: one worker keeps SwiftShader and the server from starving each other.
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    trace: 'retain-on-failure',
  },
});
