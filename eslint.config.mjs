import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, each importing only from the ones below it (docs/architecture.md):
 *   platform ← shared ← features ← api ← app
 * admin/ and seed/ sit beside them: seed builds on features, admin is an entry point like app.
 */
const LAYERS = ['platform', 'shared', 'features', 'api', 'app'];
const above = (layer) => LAYERS.slice(LAYERS.indexOf(layer) + 1);
const layerZones = [
  ...LAYERS.slice(0, -1).map((layer) => ({
    target: `./src/${layer}`,
    from: [...above(layer), 'admin', 'seed'].map((higher) => `./src/${higher}`),
    message: `src/${layer} must not depend on a layer above it (platform ← shared ← features ← api ← app).`,
  })),
  { target: './src/seed', from: ['./src/api', './src/app', './src/admin'], message: 'seed builds on features and platform only.' },
  { target: './src/admin', from: ['./src/api'], message: 'the admin CLI works on features, not on the HTTP interfaces.' },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'src/generated/',
      'coverage/',
      'test-artifacts/',
      '.data/',
      'bench/results/',
      'bench/.peers/',
      'bench/.build/',
      'clients/.tools/',
      'examples/graphql-operations.ts',
      'src/seed/report-document.generated.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // type-graphql classes declare fields filled in by the framework
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      // no-cycle follows imports into the files imported: they are TypeScript too.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      // In a cycle the load order decides what a module sees at import time (a class still
      // undefined when a decorator reads it). This rule skips type-only imports; `farm-studio look
      // src` draws those cycles too (none today).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
