// ESLint flat config: typescript-eslint's recommended rules (syntax only, not type-aware, so CI stays fast),
// Prettier owns the layout (eslint-config-prettier switches off the rules it would fight), and one layout rule
// Prettier cannot enforce: lines of at most 120 characters, comments and strings included.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Generated output and local data: build output, CDK assemblies, coverage, the local stack's data.
  { ignores: ['dist/', 'cdk.out/', 'coverage/', '.local/', '**/node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    rules: {
      // `_`-prefixed names mark a parameter or binding kept on purpose (a signature, a skipped tuple slot).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  prettier,
  // After eslint-config-prettier, which turns max-len off: Prettier wraps code at 120 but never comments or
  // strings, so this rule catches those. Left alone: URLs and regular expressions, which cannot be wrapped, imports
  // of one long name, which Prettier keeps on one line, and test titles, which read as one sentence each.
  {
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: String.raw`^\s*(import\s.+\sfrom\s.+;|(it|test|describe)(\.\w+)*\(.*)$`,
        },
      ],
    },
  },
);
