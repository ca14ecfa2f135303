// Lint: typescript-eslint's type-aware rules that catch real bugs (promises nobody awaits, promises where a
// callback's result is ignored), jest's rules for assertions that cannot fail, and prettier for layout.
import eslint from '@eslint/js';
import jest from 'eslint-plugin-jest';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', '.tools/', '.test-build-*/', '.earlier-build/', 'bench/.conventional-build/', 'coverage/'],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      'jest/valid-expect': 'error',
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      // The contract suites compare documents field by field (an expectation per field that has a type) and check
      // their fixtures in beforeAll: both are deliberate, so these two rules stay off.
      'jest/no-conditional-expect': 'off',
      'jest/no-standalone-expect': 'off',
      // Tests read whatever JSON an answer holds; the service's own code keeps the rule.
      '@typescript-eslint/no-explicit-any': 'off',
      // Supertest's .expect(…) and the suites' expect…/assert… helpers assert too.
      'jest/expect-expect': [
        'error',
        {
          assertFunctionNames: [
            'expect',
            'expect*',
            '**.expect',
            '**.expect*',
            'assert*',
            '**.assert*',
            'writeThroughFailover',
            'startThenStop',
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
  },
  prettier,
);
