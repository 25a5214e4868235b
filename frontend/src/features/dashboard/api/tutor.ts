import { supabase } from '../../../lib/supabase';
import { aiClient, gatewayBody, taskHeaders } from '../../../lib/ai';
import { accessToken } from '../../../lib/auth/store';
import { fromStored, toStored, type TutorBackend } from '../utils/tutor';

// The real backend: conversations in chat_conversations (RLS: own rows), replies streamed
// from the AI gateway with the official SDK.
export const tutorBackend: TutorBackend = {
  async load(userId, caseId) {
    const sb = supabase();
    const { data, error } = await sb
      .from('chat_conversations')
      .select('id, conversation_data')
      .eq('user_id', userId)
      .eq('case_id', caseId)
      .order('last_message_at', { ascending: false })
      .limit(1)
      .maybeSingle();
    if (error) throw error;
    if (data) return { id: data.id, messages: fromStored(data.conversation_data) };
    const ins = await sb.from('chat_conversations').insert({ user_id: userId, case_id: caseId, conversation_data: [], message_count: 0 }).select('id').single();
    if (ins.error) throw ins.error;
    return { id: ins.data.id, messages: [] };
  },
  async save(id, messages) {
    const { error } = await supabase()
      .from('chat_conversations')
      .update({ conversation_data: toStored(messages), message_count: messages.length, last_message_at: new Date().toISOString() })
      .eq('id', id);
    if (error) throw error;
  },
  async reply(turns, caseId, onText) {
    const token = accessToken();
    if (!token) throw new Error('not signed in');
    const ai = await aiClient(token);
    const stream = ai.messages.stream(
      gatewayBody(turns),
      { headers: taskHeaders('tutor', { 'X-Casus-Case': caseId }) },
    );
    stream.on('text', (delta) => onText(delta));
    const msg = await stream.finalMessage();
    const first = msg.content[0];
    if (first?.type !== 'text') throw new Error('Ne pare rău, a apărut o problemă. Încearcă din nou.');
    return first.text;
  },
  async rounds(caseId) {
    const { data, error } = await supabase().rpc('tutor_rounds_used', { p_case_id: caseId });
    if (error) throw error;
    return data ?? 0;
  },
};
