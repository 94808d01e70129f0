// Lint: typescript-eslint's recommended rules plus the project's three bans — no
// process.exit (it truncates piped stdout), no shell (argv arrays only), and no
// child_process outside core's spawn helper.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'schemas/src/generated/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly', structuredClone: 'readonly', performance: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-restricted-properties': ['error', { object: 'process', property: 'exit', message: 'set process.exitCode; process.exit() truncates piped stdout' }],
      'no-restricted-syntax': ['error',
        { selector: "Property[key.name='shell'][value.value=true]", message: 'no shell: spawn with an argv array' },
        { selector: "Property[key.value='shell'][value.value=true]", message: 'no shell: spawn with an argv array' }],
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'node:child_process', message: 'spawn through tools/core/src/spawn.ts' },
          { name: 'child_process', message: 'spawn through tools/core/src/spawn.ts' },
          { name: 'execa', importNames: ['execaCommand', 'execaCommandSync', '$'], message: 'argv arrays only: no command strings' },
        ],
      }],
    },
  },
  {
    // The one spawn helper and the sandbox launcher may start processes directly.
    files: ['tools/core/src/spawn.ts', 'tools/core/src/sandbox/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Bin shims are the only place process.exit is allowed.
    files: ['tools/*/bin/*.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
)
