import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
);
