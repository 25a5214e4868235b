import { useCallback, useEffect, useRef, useState } from 'react';
import { useQuery } from '../../../lib/query';
import {
  examItems, examReview, finishExam, recentExams, saveExamAnswer, startAssignmentExam, startExam,
  type CategoryResult, type Exam, type ExamItem, type Filters, type Letter, type ReviewItem,
} from '../api/grile';
import { toggleLetter } from './usePractice';

export type ExamState = {
  phase: 'idle' | 'loading' | 'running' | 'finishing' | 'finished';
  exam: Exam | null;
  // Seconds left when the exam was (re)opened in this page.
  seconds: number;
  items: ExamItem[];
  current: number;
  review: ReviewItem[];
  error: string | null;
};

const initial: ExamState = { phase: 'idle', exam: null, seconds: 0, items: [], current: 0, review: [], error: null };

// The time left, counted on the browser's monotonic clock from when the exam was opened (the
// server's deadline decides; this only shows it and finishes the exam at zero).
function useCountdown(exam: Exam | null, seconds: number, running: boolean, onZero: () => void): number {
  const [left, setLeft] = useState(0);
  const startedAt = useRef(0);
  const zero = useRef(onZero);
  useEffect(() => {
    zero.current = onZero;
  });
  useEffect(() => {
    if (!exam || !running) return;
    startedAt.current = performance.now();
    const total = seconds;
    const tick = () => {
      const l = Math.max(0, Math.round(total - (performance.now() - startedAt.current) / 1000));
      setLeft(l);
      if (l === 0) zero.current();
    };
    tick();
    const t = setInterval(tick, 500);
    return () => clearInterval(t);
  }, [exam, seconds, running]);
  return left;
}

export function useExam() {
  const [s, setS] = useState<ExamState>(initial);

  const start = useCallback(async (f: Filters, minutes: number) => {
    setS({ ...initial, phase: 'loading' });
    try {
      const exam = await startExam(f, minutes);
      const items = await examItems(exam.id);
      setS({ ...initial, phase: 'running', exam, items, seconds: exam.duration_seconds });
    } catch (e) {
      setS({ ...initial, error: (e as Error).message });
    }
  }, []);

  // A seminar assignment's exam: started (or taken up again) by the server, timed to its deadline.
  const startAssignment = useCallback(async (assignmentId: string) => {
    setS({ ...initial, phase: 'loading' });
    try {
      const exam = await startAssignmentExam(assignmentId);
      const items = await examItems(exam.id);
      const seconds = Math.min(exam.duration_seconds, Math.max(0, Math.round((new Date(exam.deadline).getTime() - Date.now()) / 1000)));
      setS({ ...initial, phase: 'running', exam, items, seconds });
    } catch (e) {
      setS({ ...initial, error: (e as Error).message });
    }
  }, []);

  const finish = useCallback(async () => {
    const exam = s.exam;
    if (!exam || s.phase !== 'running') return;
    setS((x) => ({ ...x, phase: 'finishing' }));
    try {
      const done = await finishExam(exam.id);
      const review = await examReview(exam.id);
      setS((x) => ({ ...x, phase: 'finished', exam: done, review, error: null }));
    } catch (e) {
      setS((x) => ({ ...x, phase: 'running', error: (e as Error).message }));
    }
  }, [s.exam, s.phase]);

  const left = useCountdown(s.exam, s.seconds, s.phase === 'running', () => void finish());

  // Back to an exam still running (after a reload): the time left as the deadline stands.
  const resume = useCallback(async (exam: Exam) => {
    setS({ ...initial, phase: 'loading' });
    try {
      const items = await examItems(exam.id);
      const seconds = Math.min(exam.duration_seconds, Math.max(0, Math.round((new Date(exam.deadline).getTime() - Date.now()) / 1000)));
      setS({ ...initial, phase: 'running', exam, items, seconds });
    } catch (e) {
      setS({ ...initial, error: (e as Error).message });
    }
  }, []);

  // The result of an exam, finishing it first when its time ran out unfinished.
  const open = useCallback(async (exam: Exam) => {
    setS({ ...initial, phase: 'loading' });
    try {
      const done = exam.finished_at ? exam : await finishExam(exam.id);
      setS({ ...initial, phase: 'finished', exam: done, review: await examReview(exam.id) });
    } catch (e) {
      setS({ ...initial, error: (e as Error).message });
    }
  }, []);

  const toggle = useCallback((l: Letter) => {
    const exam = s.exam;
    const item = s.items[s.current];
    if (!exam || !item || s.phase !== 'running') return;
    const chosen = toggleLetter(item.chosen, l);
    setS((x) => ({ ...x, items: x.items.map((it, i) => (i === x.current ? { ...it, chosen } : it)) }));
    saveExamAnswer(exam.id, item.question.id, chosen).catch((e: Error) => setS((x) => ({ ...x, error: e.message })));
  }, [s]);

  const go = useCallback((i: number) => setS((x) => ({ ...x, current: Math.max(0, Math.min(x.items.length - 1, i)) })), []);
  const reset = useCallback(() => setS(initial), []);

  const results = (s.exam?.results ?? []) as CategoryResult[];
  return { state: s, left, results, start, startAssignment, finish, toggle, go, reset, resume, open };
}

const NO_EXAMS: { exams: Exam[]; running: Exam | null } = { exams: [], running: null };

// The student's latest exams (for resuming one and reviewing past results).
export function useRecentExams(reloadKey: unknown): { exams: Exam[]; running: Exam | null } {
  // The running exam is the one whose deadline had not passed when the list was read.
  const q = useQuery(['grile-recent-exams', reloadKey], async () => {
    const exams = await recentExams();
    const now = Date.now();
    return { exams, running: exams.find((e) => !e.finished_at && new Date(e.deadline).getTime() > now) ?? null };
  });
  return q.data ?? NO_EXAMS;
}
