// Lint rules also guard the architecture: core stays pure, workers stay out of the UI,
// and type-only imports are marked so bundles never pull in worker code by accident.
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import globals from 'globals';
import ts from 'typescript-eslint';
import { layerViolation } from './scripts/layers.mjs';

const ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * `neuroeval/layers`: an import must not reach a layer above its file's
 * (scripts/layers.mjs), and the model layer imports nothing outside itself.
 * The whole graph, circles included, is checked by scripts/import-graph.ts.
 */
const layersRule = {
  meta: { type: 'problem', docs: { description: 'Lower layers never import higher ones (scripts/layers.mjs).' }, schema: [] },
  create(context) {
    const from = relative(ROOT, context.filename);
    const check = (node) => {
      const spec = node?.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = relative(ROOT, resolve(dirname(context.filename), spec.split('?')[0]));
      const why = layerViolation(from, to);
      if (why) context.report({ node: node.source, message: `Upward import: ${why}. See docs/architecture.md.` });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

const DOM_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage', 'location', 'navigator', 'self'].map((name) => ({
  name,
  message: 'src/core must run in Node and in workers: pass what you need in instead of reading browser globals.',
}));

export default ts.config(
  { ignores: ['dist/', 'dist-*/', 'node_modules/', 'test-results/', 'playwright-report/', '.cache/', 'public/'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node, __APP_VERSION__: 'readonly', __APP_COMMIT__: 'readonly', __APP_BUILT_AT__: 'readonly' },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty-pattern': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.svelte', 'workers/**/*.ts'],
    plugins: { neuroeval: { rules: { layers: layersRule } } },
    rules: { 'neuroeval/layers': 'error' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', ...DOM_GLOBALS],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['svelte', 'svelte/*'], message: 'src/core has no UI code.' },
            { group: ['**/lib/**', '**/features/**', '**/app/**'], message: 'src/core must not depend on the UI layers.' },
            { group: ['node:*'], message: 'src/core runs in browsers too: Node modules belong in src/cli.' },
          ],
        },
      ],
    },
  },
  {
    files: ['workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['svelte', 'svelte/*', '**/features/**', '**/app/**', '*.svelte'], message: 'Workers have no UI code.' }] },
      ],
    },
  },
  {
    files: ['src/features/**/*', 'src/app/**/*', 'src/lib/**/*'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Worker']", message: 'Create workers in src/lib/workers/clients.ts or src/lib/engines/*-client.ts only.' },
      ],
    },
  },
  {
    // Worker clients are the only places that construct workers.
    files: ['src/lib/workers/clients.ts', 'src/lib/engines/*-client.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
