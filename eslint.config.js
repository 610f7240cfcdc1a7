import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'bench/results/', 'test/artifacts/', 'test/browser/artifacts/', 'public/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      // `interface Config extends FolderSettings {}`: each folder merges its settings into core's Config (src/core/config.ts).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // The operator console: plain browser modules served as they are (no build step).
    files: ['console/**/*.js'],
    // Node's own globals (process, Buffer…) are switched off: they do not exist in the browser.
    languageOptions: {
      sourceType: 'module',
      globals: {
        ...Object.fromEntries(
          Object.keys(globals.node)
            .filter((name) => !(name in globals.browser))
            .map((name) => [name, 'off']),
        ),
        ...globals.browser,
      },
    },
  },
  {
    // Type-aware rules for the service: a promise nobody awaits or catches loses its error (an
    // unhandled rejection ends the process), and a promise where a callback is expected is never awaited.
    files: ['src/**/*.ts', 'routes/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);
