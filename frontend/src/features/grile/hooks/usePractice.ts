import { useCallback, useState } from 'react';
import { answer, practiceSet, type Filters, type Letter, type PracticeQuestion, type Revealed } from '../api/grile';
import { nextCards } from '../api/schedule';

export type PracticeState = {
  phase: 'idle' | 'loading' | 'question' | 'revealed' | 'done';
  questions: PracticeQuestion[];
  index: number;
  selected: Letter[];
  revealed: Revealed | null;
  right: number;
  busy: boolean;
  error: string | null;
};

const initial: PracticeState = { phase: 'idle', questions: [], index: 0, selected: [], revealed: null, right: 0, busy: false, error: null };

// The browser's clock (tests move it with Playwright's page.clock).
export const browserNow = () => new Date();

export function toggleLetter(selected: Letter[], l: Letter): Letter[] {
  return selected.includes(l) ? selected.filter((x) => x !== l) : [...selected, l].sort();
}

// One practice session: questions drawn by the server (due ones first), answered one at a
// time; each answer is scored by the server, which reveals the key and keeps the FSRS card.
export function usePractice(now: () => Date = browserNow) {
  const [s, setS] = useState<PracticeState>(initial);

  const start = useCallback(async (f: Filters, dueOnly = false) => {
    setS({ ...initial, phase: 'loading' });
    try {
      const questions = await practiceSet(f, now(), dueOnly);
      setS({ ...initial, phase: questions.length ? 'question' : 'done', questions, error: questions.length ? null : 'Nu există grile pentru criteriile alese.' });
    } catch (e) {
      setS({ ...initial, error: (e as Error).message });
    }
  }, [now]);

  const toggle = useCallback((l: Letter) => {
    setS((x) => (x.phase === 'question' && !x.busy ? { ...x, selected: toggleLetter(x.selected, l) } : x));
  }, []);

  const submit = useCallback(async () => {
    const q = s.questions[s.index];
    if (s.phase !== 'question' || s.busy || !q) return;
    if (!s.selected.length) {
      setS((x) => ({ ...x, error: 'Alege cel puțin o variantă.' }));
      return;
    }
    setS((x) => ({ ...x, busy: true, error: null }));
    try {
      const { ifWrong, ifRight } = nextCards(q.card, now());
      const r = await answer(q.id, s.selected, ifWrong, ifRight);
      setS((x) => ({ ...x, busy: false, phase: 'revealed', revealed: r, right: x.right + (r.is_correct ? 1 : 0) }));
    } catch (e) {
      setS((x) => ({ ...x, busy: false, error: (e as Error).message }));
    }
  }, [s, now]);

  const next = useCallback(() => {
    setS((x) => {
      if (x.phase !== 'revealed') return x;
      if (x.index + 1 >= x.questions.length) return { ...x, phase: 'done', revealed: null };
      return { ...x, phase: 'question', index: x.index + 1, selected: [], revealed: null, error: null };
    });
  }, []);

  const reset = useCallback(() => setS(initial), []);

  return { state: s, current: s.questions[s.index] ?? null, start, toggle, submit, next, reset };
}
