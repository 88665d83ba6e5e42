// typescript-eslint with type information (projectService: each file is linted with the tsconfig.json that
// type-checks it), so the rules that need types (floating and misused promises) see what tsc sees.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['node_modules/', 'dist/', 'dist-bench/', 'coverage/', 'data/', 'test-artifacts/', 'neo4j-local/target/', 'src/generated/'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc reports undefined names in every file it checks (checkJs included), knowing the globals each file has.
      'no-undef': 'off',
      // An async function that implements a Promise-returning interface needs no await, and turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // Rejecting with what was caught (unknown) passes the original error on.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      'prefer-const': ['error', { destructuring: 'all' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read response bodies that supertest types as `any` and assert on them, so the checks on using an `any`
    // value stay off there; declaring one (no-explicit-any) is still an error.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // CommonJS: jest configs, test setup, neo4j-local.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
