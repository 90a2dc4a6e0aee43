import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [svelte()],
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // Some suites build their fixtures once (the demo benchmark's images, a model folder): on a busy 2-core machine that can pass 10 s.
    hookTimeout: 60_000,
  },
});
