import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';

// The layers of the web app (ARCHITECTURE.md, "Web app layout"): imports go one way,
// app → features → components/lib; a feature imports no other feature; only a feature's
// api/ and lib/ use the Supabase client. The first element whose pattern matches a file
// names its layer, so the narrow ones come first.
const elements = [
  { type: 'app', pattern: 'src/app' },
  { type: 'feature-api', pattern: 'src/features/*/api', capture: ['feature'] },
  { type: 'feature', pattern: 'src/features/*', capture: ['feature'] },
  { type: 'components', pattern: 'src/components' },
  { type: 'lib', pattern: 'src/lib' },
  { type: 'types', pattern: 'src/types' },
];
const to = (...types) => types.map((type) => ({ to: { element: { type } } }));
const sameFeature = (type) => ({ to: { element: { type, captured: { feature: '{{ from.element.captured.feature }}' } } } });
const policy = (from, allow) => ({ from: { element: { type: from } }, allow });
const shared = ['components', 'lib', 'types'];
export const layerPolicies = [
  policy('app', to('app', 'feature', 'feature-api', ...shared)),
  policy('feature', [sameFeature('feature'), sameFeature('feature-api'), ...to(...shared)]),
  policy('feature-api', [sameFeature('feature'), sameFeature('feature-api'), ...to(...shared)]),
  policy('components', to(...shared)),
  policy('lib', to(...shared)),
  policy('types', to('types')),
  // Last, so it overrides the allowances above: the client itself stays in api/ and lib/.
  {
    from: { element: { types: { anyOf: ['app', 'feature', 'components'] } } },
    disallow: { to: { file: { categories: 'supabase-client' } } },
    message: "Only a feature's api/ and lib/ use the Supabase client (lib/supabase).",
  },
];

// lib/realtime is the one owner of realtime channels (ARCHITECTURE.md): no other module
// opens or removes one on the client itself.
const channelCalls = ['channel', 'removeChannel', 'removeAllChannels'].map((name) => ({
  selector: `CallExpression[callee.property.name='${name}']`,
  message: `Realtime channels are opened and closed only in src/lib/realtime.ts (watchTables, watchPresence): use those instead of .${name}().`,
}));

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-output', 'src/types/database.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'boundaries/files': [{ category: 'supabase-client', pattern: 'src/lib/supabase.ts' }],
      'boundaries/include': ['src/**/*'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          message: 'Layer rule: {{ from.type }} may not import {{ to.type }} (app → features → components/lib; no feature imports another; only api/ and lib/ use the Supabase client).',
          policies: layerPolicies,
        },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/lib/realtime.ts', 'src/lib/shims/**', 'src/**/*.test.{ts,tsx}'],
    rules: { 'no-restricted-syntax': ['error', ...channelCalls] },
  },
);
