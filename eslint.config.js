// ESLint flat config: typescript-eslint's recommended rules, import cycles (import-x/no-cycle,
// resolving @shared/* through tsconfig) and unused imports. `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import unusedImports from 'eslint-plugin-unused-imports';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'client/dist/',
      'client/dist-server/',
      'server/src/generated/',
      'shared/src/partner-client/openapi.d.ts',
      'bench/results*',
      '.data/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX, 'unused-imports': unusedImports },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'unused-imports/no-unused-imports': 'error',
      '@typescript-eslint/no-unused-vars': 'off',
      'unused-imports/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      // Drivers take configurations typed by their own zod schemas: `any` is the registry's erasure.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Input checks match NUL and other control characters on purpose (PostgreSQL cannot store NUL).
      'no-control-regex': 'off',
    },
  },
  {
    // The dashboard reaches the server through the API package's types (`@api`) only.
    files: ['client/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '@shared/../../server/**'],
              message:
                "The dashboard imports the API's types from '@api' (server/src/api-types.ts), never server code.",
            },
          ],
        },
      ],
    },
  },
);
