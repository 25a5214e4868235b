// AI gateway contract: the official Anthropic SDK pointed at our server, authenticated
// with the user's access token (the provider key never leaves the server).
import Anthropic from '@anthropic-ai/sdk';
import { createClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });

describe('AI gateway with @anthropic-ai/sdk', () => {
  let ai: Anthropic;
  let caseId: string;
  let submissionId: string;
  beforeAll(async () => {
    if (!process.env.FAKE_AI_URL) throw new Error('scripts/with-server.sh did not start the fake AI upstream');
    const email = `ai-${Date.now()}@example.ro`;
    await admin.auth.admin.createUser({ email, password: 'parola1', email_confirm: true });
    const sb = createClient(url, process.env.ANON_KEY!, { auth: { persistSession: false } });
    const { data } = await sb.auth.signInWithPassword({ email, password: 'parola1' });
    ai = new Anthropic({ baseURL: `${url}/ai`, authToken: data.session!.access_token, apiKey: null, dangerouslyAllowBrowser: true });
    const c = await admin.from('cases').insert({ case_code: `AIC${Date.now() % 100000}`, title: 'Caz 1: AI', domain: 'civil', verified: true }).select('id').single();
    caseId = c.data!.id;
    const s = await sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'Soluția mea', difficulty_rating: 3 }).select('id').single();
    submissionId = s.data!.id;
  });

  test('tutor, non-streaming', async () => {
    const msg = await ai.messages.create(
      { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: 'De unde încep?' }] },
      { headers: { 'X-Casus-Task': 'tutor', 'X-Casus-Case': caseId } },
    );
    expect(msg.content[0].type).toBe('text');
    expect((msg.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  });

  test('tutor, streaming', async () => {
    const stream = ai.messages.stream(
      { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: 'Ce normă se aplică?' }] },
      { headers: { 'X-Casus-Task': 'tutor', 'X-Casus-Case': caseId } },
    );
    const chunks: string[] = [];
    stream.on('text', (t) => chunks.push(t));
    const final = await stream.finalMessage();
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe((final.content[0] as { text: string }).text);
  });

  test('detect then grade: the server records the score', async () => {
    const headers = { 'X-Casus-Submission': submissionId };
    await ai.messages.create({ model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: '-' }] }, { headers: { ...headers, 'X-Casus-Task': 'detect' } });
    const g = await ai.messages.create({ model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user', content: '-' }] }, { headers: { ...headers, 'X-Casus-Task': 'grade' } });
    expect((g.content[0] as { text: string }).text).toContain('PUNCTAJ TOTAL');
    const { data } = await admin.from('case_submissions').select('status, score, score_value').eq('id', submissionId).single();
    expect(data).toEqual({ status: 'graded', score: '78/100', score_value: 78 });
  });

  test('anonymous callers get an authentication_error', async () => {
    const anon = new Anthropic({ baseURL: `${url}/ai`, apiKey: 'x', dangerouslyAllowBrowser: true, maxRetries: 0 });
    await expect(anon.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, { headers: { 'X-Casus-Task': 'tutor' } })).rejects.toMatchObject({ status: 401 });
  });
});
