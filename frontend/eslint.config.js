import fs from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';

const root = import.meta.dirname;
// Every folder under src/features is a feature, so a new one is covered without editing this file.
const features = fs.readdirSync(`${root}/src/features`, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

// The layers of the web app (ARCHITECTURE.md, "Web app layout"): imports go one way,
// app → features → components/lib; features do not import each other; only a feature's
// api/ and lib/ talk to the server.
export const layerZones = [
  { target: './src/features', from: './src/app', message: 'A feature does not import the app layer.' },
  {
    target: ['./src/components', './src/lib', './src/types'],
    from: ['./src/features', './src/app'],
    message: 'Shared code (components, lib) does not import features or the app.',
  },
  ...features.map((name) => ({
    target: `./src/features/${name}`,
    from: './src/features',
    except: [`./${name}`],
    message: 'A feature does not import another feature: move what they share to components/ or lib/, or compose them in app/.',
  })),
  {
    target: [
      './src/features/*/components/**',
      './src/features/*/hooks/**',
      './src/features/*/utils/**',
      './src/features/*/*.{ts,tsx}',
      './src/components/**',
      './src/app/**',
    ],
    from: './src/lib/supabase.ts',
    message: "Only a feature's api/ and lib/ use the Supabase client.",
  },
];

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
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: root, zones: layerZones }],
    },
  },
);
