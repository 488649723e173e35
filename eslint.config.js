import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers (readme "Architecture"; test/architecture/layers.test.ts checks the same on every import).
const IO_MODULES = ['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'node:fs', 'node:fs/promises', 'node:child_process', 'node:net', 'node:http', 'node:https', 'execa', 'chokidar', 'systeminformation'];
const io = (names) => names.map((name) => ({name, message: 'this layer does no I/O: take what you need as data or a function from sources/ or probe/'}));
const upward = (folders) => folders.map((f) => ({group: [`**/${f}/*`, `**/${f}`], message: `this layer must not import ${f}/ (an upward import; see the readme's architecture section)`}));

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', 'samples/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', Buffer: 'readonly', URL: 'readonly', AbortController: 'readonly', fetch: 'readonly', performance: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly'},
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      'no-control-regex': 'off',
      'no-empty': ['error', {allowEmptyCatch: true}],
    },
  },
  {
    files: ['source/types/**/*.ts'],
    rules: {'no-restricted-imports': ['error', {paths: io(IO_MODULES), patterns: [{group: ['../*', '!../types/*'], message: 'types/ is the leaf vocabulary: it imports nothing of ours'}]}]},
  },
  {
    files: ['source/engines/**/*.ts', 'source/model/**/*.ts'],
    rules: {'no-restricted-imports': ['error', {paths: io(IO_MODULES), patterns: upward(['sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo'])}]},
  },
  {
    files: ['source/ui/**/*.ts', 'source/ui/**/*.tsx'],
    rules: {'no-restricted-imports': ['error', {paths: io(['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'node:fs', 'node:fs/promises', 'node:child_process', 'node:net', 'node:http', 'node:https', 'execa', 'chokidar']), patterns: upward(['sources', 'probe'])}]},
  },
);
