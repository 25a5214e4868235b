import { beforeEach, describe, expect, test, vi } from 'vitest';
import { useToasts } from '../../../components/ui/toast';
import { canSend, createTutorStore, ERROR_MESSAGE, fromStored, roundLabel, sessionTurns, toStored, type ChatMessage, type Turn, type TutorBackend } from './tutor';

const msg = (role: 'user' | 'assistant', content: string, i = 0): ChatMessage => ({ id: `x${i}${content}`, role, content, timestamp: '2026-01-01T10:00:00.000Z' });

describe('tutor rules', () => {
  test('blank messages and sends while a reply loads are ignored', () => {
    expect(canSend('', false)).toBe(false);
    expect(canSend('  \n\t', false)).toBe(false);
    expect(canSend('Ce articol?', true)).toBe(false);
    expect(canSend('Ce articol?', false)).toBe(true);
  });

  test('the model sees only the turns since load, plus the new question', () => {
    const earlier = [msg('user', 'vechi 1'), msg('assistant', 'r1'), msg('user', 'vechi 2'), msg('assistant', 'r2')];
    const now = [...earlier, msg('user', 'nou'), msg('assistant', 'r3')];
    expect(sessionTurns(now, earlier.length, 'a doua')).toEqual([
      { role: 'user', content: 'nou' },
      { role: 'assistant', content: 'r3' },
      { role: 'user', content: 'a doua' },
    ]);
    expect(sessionTurns(earlier, earlier.length, 'prima')).toEqual([{ role: 'user', content: 'prima' }]);
  });

  test('stored data round-trips and junk entries are dropped', () => {
    const m = [msg('user', 'a'), msg('assistant', 'b')];
    const stored = toStored(m);
    expect(stored).toEqual([
      { role: 'user', content: 'a', timestamp: '2026-01-01T10:00:00.000Z' },
      { role: 'assistant', content: 'b', timestamp: '2026-01-01T10:00:00.000Z' },
    ]);
    expect(fromStored(stored).map((x) => [x.role, x.content])).toEqual([['user', 'a'], ['assistant', 'b']]);
    expect(fromStored([null, { role: 'system', content: 'x' }, { role: 'user' }, 'text', { role: 'assistant', content: 'ok' }]).map((x) => x.content)).toEqual(['ok']);
    expect(fromStored({})).toEqual([]);
  });
});

// A backend double for the store: records calls, answers from a script.
function fakeBackend(stored: ChatMessage[] = []) {
  const calls = { turns: [] as Turn[][], saves: [] as ChatMessage[][], loads: 0 };
  let fail = false;
  let gate: Promise<void> | null = null;
  const b: TutorBackend = {
    load: async () => {
      calls.loads++;
      return { id: 'conv1', messages: stored };
    },
    save: async (_id, m) => {
      calls.saves.push(m);
    },
    rounds: async () => Math.min(calls.turns.length, 4),
    reply: async (turns, _case, onText) => {
      calls.turns.push(turns);
      if (gate) await gate;
      if (fail) throw new Error('upstream 500');
      const n = turns.filter((t) => t.role === 'user').length;
      const text = n > 4 ? 'Am parcurs împreună cele 4 runde' : `Întrebarea ${n}?`;
      onText(text.slice(0, 5));
      onText(text.slice(5));
      return text;
    },
  };
  return {
    b,
    calls,
    failNext: (v: boolean) => (fail = v),
    hold: () => {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

describe('tutor store', () => {
  beforeEach(() => useToasts.setState({ toasts: [] }));

  test('five sends in one session: each send carries the session turns, the 5th gets the closing message; each exchange is saved', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    for (let i = 1; i <= 5; i++) expect(await store.getState().send(`întrebarea ${i}`)).toBe(true);
    expect(f.calls.turns.map((t) => t.filter((x) => x.role === 'user').length)).toEqual([1, 2, 3, 4, 5]);
    const s = store.getState();
    expect(s.messages).toHaveLength(10);
    expect(s.messages.at(-1)!.content).toMatch(/^Am parcurs/);
    expect(s.interactions).toBe(5);
    expect(f.calls.saves).toHaveLength(5);
    expect(f.calls.saves.at(-1)).toHaveLength(10);
  });

  test('the rounds used come from the server: "Runda N din 4" until the fourth reply', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    await vi.waitFor(() => expect(store.getState().roundsUsed).toBe(0));
    expect(roundLabel(store.getState().roundsUsed)).toBe('Runda 1 din 4');
    await store.getState().send('întrebarea 1');
    expect(roundLabel(store.getState().roundsUsed)).toBe('Runda 2 din 4');
    for (let i = 2; i <= 4; i++) await store.getState().send(`întrebarea ${i}`);
    expect(store.getState().roundsUsed).toBe(4);
    expect(roundLabel(store.getState().roundsUsed)).toBeNull();
    expect(roundLabel(null)).toBeNull();
  });

  test('after a reload the history is shown but the model gets only the new session', async () => {
    const history = [msg('user', 'q1', 1), msg('assistant', 'a1', 2), msg('user', 'q2', 3), msg('assistant', 'a2', 4)];
    const f = fakeBackend(history);
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    expect(store.getState().messages.map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(store.getState().interactions).toBe(0);
    await store.getState().send('din nou');
    expect(f.calls.turns[0]).toEqual([{ role: 'user', content: 'din nou' }]);
    expect(f.calls.saves[0].map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2', 'din nou', 'Întrebarea 1?']);
  });

  test('blank and concurrent sends are ignored', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    expect(await store.getState().send('   ')).toBe(false);
    const release = f.hold();
    const first = store.getState().send('prima');
    await Promise.resolve();
    expect(store.getState().busy).toBe(true);
    expect(await store.getState().send('a doua')).toBe(false);
    release();
    expect(await first).toBe(true);
    expect(f.calls.turns).toHaveLength(1);
    expect(store.getState().messages.map((m) => m.content)).toEqual(['prima', 'Întrebarea 1?']);
  });

  test('a failed send removes the user message, shows the error and toasts; nothing is saved', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    await store.getState().send('prima');
    f.failNext(true);
    expect(await store.getState().send('a doua')).toBe(false);
    const s = store.getState();
    expect(s.messages.map((m) => m.content)).toEqual(['prima', 'Întrebarea 1?']);
    expect(s.error).toBe(ERROR_MESSAGE);
    expect(s.busy).toBe(false);
    expect(useToasts.getState().toasts.map((t) => [t.title, t.description])).toEqual([['Eroare la trimiterea mesajului', ERROR_MESSAGE]]);
    expect(f.calls.saves).toHaveLength(1);
  });

  test('without a user or a case nothing is sent or stored', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', null);
    expect(await store.getState().send('salut')).toBe(false);
    expect(f.calls.loads).toBe(0);
    expect(f.calls.turns).toHaveLength(0);
  });

  test('a load error is logged and the chat stays usable with the greeting only', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const f = fakeBackend();
    f.b.load = async () => {
      throw new Error('db down');
    };
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    expect(store.getState().messages).toEqual([]);
    expect(store.getState().loadingConversation).toBe(false);
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });

  test('opening the same case twice at once loads (and so creates) one conversation', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await Promise.all([store.getState().open('u1', 'c1'), store.getState().open('u1', 'c1')]);
    expect(f.calls.loads).toBe(1);
    expect(store.getState().conversationId).toBe('conv1');
    await store.getState().open('u1', 'c1');
    expect(f.calls.loads).toBe(2);
  });

  test('switching case while a reply streams drops the late reply', async () => {
    const f = fakeBackend();
    const store = createTutorStore(() => f.b);
    await store.getState().open('u1', 'c1');
    const release = f.hold();
    const pending = store.getState().send('prima');
    await store.getState().open('u1', 'c2');
    release();
    expect(await pending).toBe(false);
    expect(store.getState().caseId).toBe('c2');
    expect(f.calls.saves).toHaveLength(0);
  });
});
