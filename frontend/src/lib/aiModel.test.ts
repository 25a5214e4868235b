import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AI_MODEL } from './supabase';

// The default model must be one the installed SDK knows and does not warn about: the SDK
// keeps its retiring models in a private DEPRECATED_MODELS table and its known models in the
// `Model` type, so both are read from the installed package's files.
const sdk = path.resolve(__dirname, '../../node_modules/@anthropic-ai/sdk/resources/messages');

function deprecatedModels(): string[] {
  const js = fs.readFileSync(path.join(sdk, 'messages.js'), 'utf8');
  const table = /const DEPRECATED_MODELS = \{([^}]*)\}/.exec(js);
  if (!table) throw new Error('DEPRECATED_MODELS not found in the installed @anthropic-ai/sdk');
  return [...table[1].matchAll(/'([^']+)'\s*:/g)].map((m) => m[1]);
}

function knownModels(): string[] {
  const dts = fs.readFileSync(path.join(sdk, 'messages.d.ts'), 'utf8');
  const union = /export type Model = ([^;]*);/.exec(dts);
  if (!union) throw new Error('Model type not found in the installed @anthropic-ai/sdk');
  return [...union[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

function serverDefault(): string {
  const go = fs.readFileSync(path.resolve(__dirname, '../../../server/internal/config/config.go'), 'utf8');
  const m = /const DefaultAIModel = "([^"]+)"/.exec(go);
  if (!m) throw new Error('DefaultAIModel not found in server/internal/config/config.go');
  return m[1];
}

describe('default AI model', () => {
  it('is a model the installed SDK knows, not one it deprecates', () => {
    expect(deprecatedModels().length).toBeGreaterThan(0);
    expect(knownModels()).toContain(DEFAULT_AI_MODEL);
    expect(deprecatedModels()).not.toContain(DEFAULT_AI_MODEL);
  });
  it('is the same in the server and the web app', () => {
    expect(serverDefault()).toBe(DEFAULT_AI_MODEL);
  });
});
