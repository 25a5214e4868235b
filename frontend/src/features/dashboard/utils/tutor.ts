import { createStore, type StoreApi } from 'zustand/vanilla';
import { toast } from '../../../components/ui/toast';

// The tutor chat's state and rules. The pure parts (what may be sent, what the model sees,
// what is stored) are plain functions; the store takes its backend as a parameter so unit
// tests drive it without a server.

export type Role = 'user' | 'assistant';
export type ChatMessage = { id: string; role: Role; content: string; timestamp: string };
export type Turn = { role: Role; content: string };

export const GREETING =
  'Bună! Sunt tutorele tău AI. Te ghidez în 4 runde cu întrebări socratice, fără să îți dau răspunsul. Spune-mi de unde vrei să pornești.';
export const NO_CASE = 'Alege un caz din stânga ca să începem.';
// The rounds that reach the model per user and case (the gateway's tutorRounds).
export const TUTOR_ROUNDS = 4;
export const ROUNDS_DONE = 'Ai parcurs cele 4 runde cu tutorele. Acum e rândul tău: scrie soluția.';

// "Runda 2 din 4": the round the next question opens; null once the rounds are used.
export function roundLabel(used: number | null): string | null {
  if (used == null || used >= TUTOR_ROUNDS) return null;
  return `Runda ${used + 1} din ${TUTOR_ROUNDS}`;
}
export const ERROR_MESSAGE = 'Ne pare rău, a apărut o eroare. Te rugăm să încerci din nou.';
export const SEND_ERROR_TITLE = 'Eroare la trimiterea mesajului';

// A blank message, or one typed while a reply is still coming, is ignored.
export const canSend = (text: string, busy: boolean) => !busy && text.trim().length > 0;

// What the model is sent: the turns of the current session (since the conversation was
// loaded) plus the new question. The gateway counts the user turns in it to close the
// conversation from the 5th interaction, so earlier sessions must not be included.
export function sessionTurns(messages: ChatMessage[], sessionStart: number, question: string): Turn[] {
  const turns: Turn[] = messages
    .slice(sessionStart)
    .filter((m) => m.content.trim() !== '')
    .map((m) => ({ role: m.role, content: m.content }));
  turns.push({ role: 'user', content: question });
  return turns;
}

// The stored form (chat_conversations.conversation_data): role, content, ISO timestamp.
export const toStored = (messages: ChatMessage[]) => messages.map(({ role, content, timestamp }) => ({ role, content, timestamp }));

// Reads stored conversation data defensively: anything that is not a message is dropped.
export function fromStored(data: unknown): ChatMessage[] {
  if (!Array.isArray(data)) return [];
  const out: ChatMessage[] = [];
  data.forEach((m, i) => {
    if (!m || typeof m !== 'object') return;
    const { role, content, timestamp } = m as Record<string, unknown>;
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') return;
    out.push({ id: `s${i}`, role, content, timestamp: typeof timestamp === 'string' ? timestamp : new Date(0).toISOString() });
  });
  return out;
}

export interface TutorBackend {
  // The user's latest conversation on the case (by last_message_at), or a new empty one.
  load(userId: string, caseId: string): Promise<{ id: string; messages: ChatMessage[] }>;
  save(id: string, messages: ChatMessage[]): Promise<void>;
  // Streams the reply, calling onText with each piece; resolves with the whole text.
  reply(turns: Turn[], caseId: string, onText: (delta: string) => void): Promise<string>;
  // How many of the case's rounds this user has used, as the gateway counts them.
  rounds(caseId: string): Promise<number>;
}

export type TutorState = {
  userId: string | null;
  caseId: string | null;
  conversationId: string | null;
  messages: ChatMessage[];
  sessionStart: number; // index of the first message of this session
  interactions: number; // sends since load
  roundsUsed: number | null; // the server's count; null until known
  loadingConversation: boolean;
  busy: boolean; // a reply is on its way
  error: string | null;
  open: (userId: string | null, caseId: string | null) => Promise<void>;
  send: (text: string) => Promise<boolean>;
};

let seq = 0;
const newId = () => `m${Date.now().toString(36)}${(seq++).toString(36)}`;

export function createTutorStore(backend: () => TutorBackend): StoreApi<TutorState> {
  let generation = 0; // bumps on every open(): late answers for another case are dropped
  // One load per user and case at a time: opening the same case twice in a row (a quick
  // switch back, React's development double effects) must not create two conversations.
  const inflight = new Map<string, Promise<{ id: string; messages: ChatMessage[] }>>();
  const loadOnce = (userId: string, caseId: string) => {
    const key = `${userId}/${caseId}`;
    let p = inflight.get(key);
    if (!p) {
      p = backend()
        .load(userId, caseId)
        .finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  };
  return createStore<TutorState>((set, get) => ({
    userId: null,
    caseId: null,
    conversationId: null,
    messages: [],
    sessionStart: 0,
    interactions: 0,
    roundsUsed: null,
    loadingConversation: false,
    busy: false,
    error: null,
    open: async (userId, caseId) => {
      const gen = ++generation;
      set({ userId, caseId, conversationId: null, messages: [], sessionStart: 0, interactions: 0, roundsUsed: null, busy: false, error: null, loadingConversation: !!(userId && caseId) });
      if (!userId || !caseId) return;
      backend()
        .rounds(caseId)
        .then((n) => gen === generation && set({ roundsUsed: n }))
        .catch((e) => console.error('tutor rounds load failed', e));
      try {
        const conv = await loadOnce(userId, caseId);
        if (gen !== generation) return;
        set({ conversationId: conv.id, messages: conv.messages, sessionStart: conv.messages.length, loadingConversation: false });
      } catch (e) {
        // Load errors are logged only; the chat shows the greeting.
        console.error('tutor conversation load failed', e);
        if (gen === generation) set({ loadingConversation: false });
      }
    },
    send: async (text) => {
      const s = get();
      if (!canSend(text, s.busy) || !s.userId || !s.caseId) return false;
      const gen = generation;
      const question = text.trim();
      const turns = sessionTurns(s.messages, s.sessionStart, question);
      const user: ChatMessage = { id: newId(), role: 'user', content: question, timestamp: new Date().toISOString() };
      const answer: ChatMessage = { id: newId(), role: 'assistant', content: '', timestamp: user.timestamp };
      set({ messages: [...s.messages, user, answer], busy: true, error: null, interactions: s.interactions + 1 });
      const patch = (content: string) =>
        gen === generation && set({ messages: get().messages.map((m) => (m.id === answer.id ? { ...m, content } : m)) });
      let streamed = '';
      try {
        const full = await backend().reply(turns, s.caseId, (delta) => {
          streamed += delta;
          patch(streamed);
        });
        if (gen !== generation) return false;
        if (!full.trim()) throw new Error('empty reply');
        set({
          messages: get().messages.map((m) => (m.id === answer.id ? { ...m, content: full, timestamp: new Date().toISOString() } : m)),
          busy: false,
        });
      } catch (e) {
        console.error('tutor send failed', e);
        if (gen !== generation) return false;
        // The user's message (and the partial reply) leave the list.
        set({ messages: get().messages.filter((m) => m.id !== user.id && m.id !== answer.id), busy: false, error: ERROR_MESSAGE, interactions: get().interactions - 1 });
        toast.error(SEND_ERROR_TITLE, ERROR_MESSAGE);
        return false;
      }
      // The server's count after this round (it may differ from one more, e.g. another tab).
      const used = get().roundsUsed;
      set({ roundsUsed: used == null ? null : used + 1 });
      await backend()
        .rounds(s.caseId)
        .then((n) => gen === generation && set({ roundsUsed: n }))
        .catch((e) => console.error('tutor rounds load failed', e));
      const { conversationId, messages } = get();
      if (conversationId) {
        // Save errors are logged only.
        await backend()
          .save(conversationId, messages)
          .catch((e) => console.error('tutor conversation save failed', e));
      }
      return true;
    },
  }));
}
