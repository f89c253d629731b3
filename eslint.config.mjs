// ESLint (flat config) for the TypeScript of every part: `npm run lint`, run by .ci/run.
// typescript-eslint's recommended rules without type information (fast: no program is built;
// `npm run typecheck` is the type check), plus the project's own arrows: what core/ and
// webview/ may import (DESIGN.md "Processes and folders").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'native/build/**', 'native/cuda/build/**', 'native/wasm/build/**', 'test-results/**', '.vscode-test/**', 'core/config/profileValidator.generated.js', 'core/protocol/runValidator.generated.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly' } },
    rules: {
      // Unused names are the type checker's (noUnusedLocals, noUnusedParameters); `_x` marks one kept on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // The LSP custom messages are namespaces by design (STYLE.md 3: vscode-eslint's customMessages).
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['vscode', 'vscode-languageclient', 'vscode-languageclient/*', 'vscode-languageserver', 'vscode-languageserver/*'], message: 'core/ is the domain: no vscode' },
        { group: ['**/native', '**/native/**', '**/runner/**', '**/server/**', '**/extension/**', '**/webview/**'], message: 'core/ imports only core/ (arrows point into core)' },
      ] }],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['vscode', 'vscode-languageclient', 'vscode-languageclient/*', 'node:*'], message: 'the webview runs in a browser: no vscode, no Node' },
        { group: ['../core/*', '!../core/protocol', '!../core/format', '!../core/noise', '!../core/sweepFigures'], message: 'the webview imports only core/protocol (types), core/format, core/noise and core/sweepFigures (pure, no imports)' },
        { group: ['../core/protocol/*'], allowTypeImports: true, message: 'the webview imports only types from core/protocol' },
        { group: ['../native', '../native/*', '../runner/*', '../server/*', '../extension/*'], message: 'the webview imports only core/protocol and core/format' },
      ] }],
    },
  },
);
