import { aiClient as gatewayClient, gatewayBody, taskHeaders } from '../../../lib/ai';
import type { AiTask } from '../../../types/rules';
import { accessToken } from '../../../lib/auth/store';
import { MSG_GENERATE, MSG_NOT_TEXT, ParseError, parseClassification, parseGenerated, type GenDomain, type GeneratedCase } from '../../../lib/caseDraft';

// The AI client is loaded only when a case is generated.
async function aiClient() {
  const token = accessToken();
  if (!token) throw new Error('not signed in');
  return gatewayClient(token);
}

async function ask(task: Extract<AiTask, 'generate' | 'classify'>, content: string, headers: Record<string, string> = {}): Promise<string> {
  const ai = await aiClient();
  const reply = await ai.messages.create(
    gatewayBody([{ role: 'user', content }]),
    { headers: taskHeaders(task, headers) },
  );
  const first = reply.content[0];
  if (!first || first.type !== 'text') throw new Error(MSG_NOT_TEXT);
  return first.text;
}

// generateCase runs the generation call (the server owns the prompt and its settings) and reads the case; failures carry the spec's messages.
export async function generateCase(request: string): Promise<GeneratedCase> {
  let text: string;
  try {
    text = await ask('generate', request);
  } catch (e) {
    if ((e as Error).message === MSG_NOT_TEXT) throw e;
    console.error('generation failed', e);
    throw new Error(MSG_GENERATE, { cause: e });
  }
  try {
    return parseGenerated(text);
  } catch (e) {
    if (e instanceof ParseError) throw e;
    throw new ParseError();
  }
}

// classifyCase asks for a category and subcategory from the domain's list; any failure
// silently yields nothing.
export async function classifyCase(domain: GenDomain, c: GeneratedCase): Promise<{ category: string; subcategory: string } | null> {
  try {
    const text = await ask('classify', JSON.stringify({ titlu: c.title, problema_juridica: c.legal_problem, descriere: c.case_description }), { 'X-Casus-Domain': domain });
    return parseClassification(text);
  } catch {
    return null;
  }
}
