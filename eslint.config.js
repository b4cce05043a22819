import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/dist-types/**', '**/node_modules/**', 'data/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['test/**', 'bench/**', 'scripts/**', 'sdk/node/examples/**'], rules: { 'no-console': 'off' } },
  // The signing page and the console run in the browser (bundled by esbuild), not in Node.
  { files: ['signing-page/src/**', 'console/src/**'], languageOptions: { globals: { ...globals.browser } } },
  // @tawqi/embed runs on integrators' pages: browser globals only, and nothing imported (no dependencies).
  {
    files: ['sdk/embed/src/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\./)', message: '@tawqi/embed has no dependencies.' }] }] },
  },
  // @tawqi/shared runs in browsers too (the signing page, and @tawqi/shared/cms anywhere): no Node APIs.
  {
    files: ['shared/src/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'shared/ is browser-safe: no Node modules.' }] }],
      'no-restricted-globals': [
        'error',
        { name: 'Buffer', message: 'shared/ is browser-safe: use Uint8Array.' },
        { name: 'process', message: 'shared/ is browser-safe.' },
      ],
    },
  },
);
