import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { aiEnabled, aiModel, supabase } from '../../../lib/supabase';
import { aiClient } from '../../../lib/ai';
import { useAuth, useAuthStore } from '../../../lib/auth/store';
import { canSend, createTutorStore, fromStored, GREETING, NO_CASE, roundLabel, ROUNDS_DONE, toStored, TUTOR_ROUNDS, type TutorBackend } from '../utils/tutor';
import { openSolution } from '../utils/solve';
import { SendIcon } from '../../../components/ui/icons';

// The real backend: conversations in chat_conversations (RLS: own rows), replies streamed
// from the AI gateway with the official SDK.
const backend: TutorBackend = {
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
    const token = useAuthStore.getState().session?.access_token;
    if (!token) throw new Error('not signed in');
    const ai = await aiClient(token);
    const stream = ai.messages.stream(
      { model: aiModel(), max_tokens: 1024, temperature: 0.1, messages: turns },
      { headers: { 'X-Casus-Task': 'tutor', 'X-Casus-Case': caseId } },
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

export const tutorStore = createTutorStore(() => backend);

export function TutorChat({ caseId }: { caseId: string | null }) {
  const ai = aiEnabled();
  const { user } = useAuth();
  const userId = user?.id ?? null;
  const messages = useStore(tutorStore, (s) => s.messages);
  const busy = useStore(tutorStore, (s) => s.busy);
  const error = useStore(tutorStore, (s) => s.error);
  const loading = useStore(tutorStore, (s) => s.loadingConversation);
  const roundsUsed = useStore(tutorStore, (s) => s.roundsUsed);
  const done = !!caseId && roundsUsed != null && roundsUsed >= TUTOR_ROUNDS && !busy;
  const round = caseId ? roundLabel(roundsUsed) : null;
  const [text, setText] = useState('');
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void tutorStore.getState().open(userId, caseId);
  }, [userId, caseId]);
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages]);
  const send = async () => {
    if (!canSend(text, busy)) return;
    const sent = text;
    setText('');
    const ok = await tutorStore.getState().send(sent);
    if (!ok) setText((t) => t || sent);
  };
  const disabled = !ai || !caseId || loading;
  return (
    <section className="chat" aria-label="Casus AI">
      <h2>
        Casus AI {round && <span className="round" data-testid="tutor-round">{round}</span>}
      </h2>
      <div className="messages" ref={list} aria-live="polite" data-testid="chat-messages">
        <p className="msg assistant" data-who="Casus AI">{GREETING}</p>
        {!caseId && <p className="muted">{NO_CASE}</p>}
        {messages.map((m) => (
          <p key={m.id} className={`msg ${m.role}`} data-role={m.role} data-who={m.role === 'user' ? 'Tu' : 'Casus AI'}>
            {m.content || (busy ? <span className="typing" aria-label="Tutorele scrie">…</span> : null)}
          </p>
        ))}
      </div>
      {error && <p className="error" role="alert">{error}</p>}
      {done ? (
        <div className="chat-done" data-testid="tutor-done">
          <p>{ROUNDS_DONE}</p>
          <button className="primary" onClick={openSolution}>Rezolvă speța!</button>
        </div>
      ) : (
      <div className="chat-input">
        <textarea
          placeholder="Scrie întrebarea ta aici..."
          disabled={disabled}
          rows={2}
          aria-label="Mesaj"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <button className="primary" onClick={() => void send()} disabled={disabled || !canSend(text, busy)} aria-label="Trimite">
          {busy ? <span className="spinner small-inline" aria-hidden /> : <SendIcon />}
        </button>
      </div>
      )}
      {!ai && <p className="muted">Tutorele AI nu este configurat pe acest server.</p>}
    </section>
  );
}
