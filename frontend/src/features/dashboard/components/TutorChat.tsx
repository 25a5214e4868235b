import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { aiEnabled } from '../../../lib/ai';
import { tutorBackend as backend } from '../api/tutor';
import { useUser } from '../../../lib/auth/store';
import { canSend, createTutorStore, GREETING, NO_CASE, roundLabel, ROUNDS_DONE, TUTOR_ROUNDS } from '../utils/tutor';
import { openSolution } from '../utils/solve';
import { SendIcon } from '../../../components/ui/icons';
import { useTutorAllowed } from '../hooks/useTutorAllowed';

export const TUTOR_FORBIDDEN = 'Asistentul grupei nu permite tutorele pentru această temă.';

export const tutorStore = createTutorStore(() => backend);

export function TutorChat({ caseId }: { caseId: string | null }) {
  const ai = aiEnabled();
  const user = useUser();
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
  const allowed = useTutorAllowed(caseId);
  const disabled = !ai || !caseId || loading || !allowed;
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
      {!allowed && <p className="banner" role="status" data-testid="tutor-forbidden">{TUTOR_FORBIDDEN}</p>}
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
