// Lint rules also guard the architecture: core stays pure, workers stay out of the UI,
// and type-only imports are marked so bundles never pull in worker code by accident.
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';

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
