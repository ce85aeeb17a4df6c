// ESLint flat config: typescript-eslint with type information, complexity as an error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import landscape from './eslint-rules/index.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.local/**', 'coverage/**', '**/*.js', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      complexity: ['error', 10],
      'max-lines': ['error', { max: 400 }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/explicit-function-return-type': [
        'error',
        { allowExpressions: true, allowTypedFunctionExpressions: true, allowHigherOrderFunctions: true },
      ],
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Plain JavaScript launchers (scripts/launch.mjs): no type information, Node's globals.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/explicit-function-return-type': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
  {
    // zod by name through shared/config/zod.ts: its own `z` object carries every locale into each bundle
    files: ['**/*.ts'],
    ignores: ['shared/config/zod.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'zod',
              message:
                "import * as z from 'shared/config/zod.js' (zod's own z puts every locale in the bundle)",
            },
          ],
        },
      ],
    },
  },
  {
    // The import layers and no cycles (eslint-rules/index.js; README "Layout").
    plugins: { landscape },
    rules: { 'landscape/layers': 'error', 'landscape/no-cycle': 'error' },
  },
  {
    // Tests read loosely typed JSON and are long tables; benchmarks keep the complexity rule.
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // test tables are long: the 400-line limit is for product code
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts', '**/*.test.ts', '**/*.fixtures.ts'],
    rules: { complexity: 'off', 'max-lines': 'off' },
  },
);
