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
    // The executable is a CommonJS script (bin/package.json): node's ES-module loader costs its start ~8 ms.
    files: ['bin/**/*.js'],
    languageOptions: {sourceType: 'commonjs', globals: {require: 'readonly', __dirname: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // fetch's first call loads undici (llhttp in WebAssembly, http2, zlib, web streams): ~19 MB of RSS
    // that a monitor keeps for as long as it runs (sources/http-get.ts). Only the probe's transport
    // uses it, in this thread, where its reader worker cannot start.
    files: ['source/**/*.ts', 'source/**/*.tsx'],
    ignores: ['source/probe/transport.ts'],
    rules: {'no-restricted-globals': ['error', {name: 'fetch', message: 'fetch loads undici (~19 MB kept for the whole run): use httpGet/httpPost from sources/http-get.ts'}]},
  },
  {
    // ICU's locale data: the first toLocaleString or Intl.NumberFormat pages in ~4–5 MB of node's
    // binary, localeCompare's collator ~2 MB, and they stay in RSS for the whole run (issue 32,
    // measured with /proc/PID/smaps). Numbers: grouped(); ASCII keys: codeUnitOrder() (util/format.ts).
    files: ['source/**/*.ts', 'source/**/*.tsx'],
    rules: {
      'no-restricted-properties': ['error',
        ...['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'].map((property) => ({property, message: "ICU's locale data stays in RSS for the whole run (~5 MB): use grouped() from util/format.ts, or an ISO time"})),
        {property: 'localeCompare', message: "ICU's collator stays in RSS for the whole run (~2 MB): codeUnitOrder() from util/format.ts orders ASCII keys the same"},
        ...['NumberFormat', 'DateTimeFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat', 'ListFormat'].map((property) => ({object: 'Intl', property, message: "ICU's locale data stays in RSS for the whole run: format by hand (util/format.ts)"})),
      ],
    },
  },
  {
    files: ['source/types/**/*.ts'],
    rules: {'no-restricted-imports': ['error', {paths: io(IO_MODULES), patterns: [{group: ['../*', '!../types/*'], message: 'types/ is the leaf vocabulary: it imports nothing of ours'}]}]},
  },
  {
    files: ['source/engines/**/*.ts'],
    rules: {'no-restricted-imports': ['error', {paths: io(IO_MODULES), patterns: upward(['model', 'sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo'])}]},
  },
  {
    files: ['source/model/**/*.ts'],
    rules: {'no-restricted-imports': ['error', {paths: io(IO_MODULES), patterns: upward(['sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo'])}]},
  },
  {
    files: ['source/ui/**/*.ts', 'source/ui/**/*.tsx'],
    rules: {'no-restricted-imports': ['error', {paths: io(['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'node:fs', 'node:fs/promises', 'node:child_process', 'node:net', 'node:http', 'node:https', 'execa', 'chokidar']), patterns: upward(['sources', 'probe'])}]},
  },
);
