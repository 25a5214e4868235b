import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { Citation, Filters } from '../api/grile';
import { CodePanel, targetOf, type ArticleTarget } from './CodePanel';
import { ExamResult } from './ExamResult';
import { ExamRunner } from './ExamRunner';
import { PracticeSession } from './PracticeSession';
import { SetupForm } from './SetupForm';
import { useExam, useRecentExams } from '../hooks/useExam';
import { ExamHistory } from './ExamHistory';
import { useCategories, useDueCount } from '../hooks/useGrileData';
import { browserNow, usePractice } from '../hooks/usePractice';

type Mode = 'practice' | 'exam';

// /grile: practice with spaced repetition, or a timed exam simulation.
export default function GrilePage() {
  // /grile?tema=<id>: a seminar assignment's grile, opened from the dashboard's "Teme".
  const [params] = useSearchParams();
  const tema = params.get('tema');
  const [mode, setMode] = useState<Mode>(tema ? 'exam' : 'practice');
  const [target, setTarget] = useState<ArticleTarget | null>(null);
  const categories = useCategories();
  const practice = usePractice(browserNow);
  const exam = useExam();
  const { due, reload } = useDueCount(browserNow);
  const onArticle = useCallback((c: Citation) => setTarget(targetOf(c)), []);
  // Closing the code returns the keyboard to the grilă (Enter goes on, not back to the badge).
  const closeCode = useCallback(() => {
    setTarget(null);
    const el = document.activeElement as HTMLElement | null;
    if (el?.closest('.badge.article, .grile-code-panel')) el.blur();
  }, []);
  const examBusy = exam.state.phase === 'running' || exam.state.phase === 'finishing';
  const recent = useRecentExams(`${mode}:${exam.state.phase}`);
  const p = practice.state;
  return (
    <main className={`page grile-page${target ? ' with-code' : ''}`}>
      <div className="grile-main">
        <header className="grile-top">
          <h1>Grile</h1>
          <div className="tabs grile-tabs" role="tablist">
            <button role="tab" aria-selected={mode === 'practice'} className={mode === 'practice' ? 'active' : ''} disabled={examBusy} onClick={() => setMode('practice')}>Exersează</button>
            <button role="tab" aria-selected={mode === 'exam'} className={mode === 'exam' ? 'active' : ''} onClick={() => setMode('exam')}>Simulare examen</button>
          </div>
        </header>
        {mode === 'practice' && (
          <>
            {(p.phase === 'idle' || p.phase === 'loading') && (
              <>
                <section className="card grile-due" aria-label="De recapitulat azi">
                  <h2>De recapitulat azi</h2>
                  {due === null ? <p className="muted">Se încarcă...</p> : due === 0 ? (
                    <p className="muted" data-testid="due-count">Nicio grilă de recapitulat acum.</p>
                  ) : (
                    <>
                      <p data-testid="due-count">{due === 1 ? '1 grilă de recapitulat' : `${due} grile de recapitulat`}</p>
                      <button className="primary" disabled={p.phase === 'loading'}
                        onClick={() => void practice.start({ domain: null, categories: [], level: null, count: 100 }, true)}>Recapitulează acum</button>
                    </>
                  )}
                </section>
                <section className="card">
                  <h2>Exersează</h2>
                  <p className="muted">Grilele de recapitulat vin primele, apoi cele noi.</p>
                  <SetupForm categories={categories} busy={p.phase === 'loading'} onStart={(f: Filters) => void practice.start(f)} />
                  {p.error && <p className="error" role="alert">{p.error}</p>}
                </section>
              </>
            )}
            {(p.phase === 'question' || p.phase === 'revealed' || p.phase === 'done') && (
              <PracticeSession p={practice} categories={categories} onArticle={onArticle} now={browserNow}
                onDone={() => { practice.reset(); reload(); }} />
            )}
          </>
        )}
        {mode === 'exam' && (
          <>
            {tema && (exam.state.phase === 'idle' || exam.state.phase === 'loading') && (
              <section className="card" aria-labelledby="tema-grile-title">
                <h2 id="tema-grile-title">Temă de seminar</h2>
                <p className="muted">Grilele și timpul le-a ales asistentul; răspunsurile se văd la final, iar rezultatul ajunge la asistent.</p>
                <button className="primary" disabled={exam.state.phase === 'loading'} onClick={() => void exam.startAssignment(tema)}>Începe grilele temei</button>
                {exam.state.error && <p className="error" role="alert">{exam.state.error}</p>}
              </section>
            )}
            {(exam.state.phase === 'idle' || exam.state.phase === 'loading') && (
              <section className="card">
                <h2>Simulare examen</h2>
                <p className="muted">Ca la examenul de admitere în profesie: o grilă se punctează numai dacă alegi exact variantele corecte. Răspunsurile corecte se văd la final.</p>
                <SetupForm categories={categories} exam busy={exam.state.phase === 'loading'} onStart={(f, minutes) => void exam.start(f, minutes)} />
                {!tema && exam.state.error && <p className="error" role="alert">{exam.state.error}</p>}
              </section>
            )}
            {exam.state.phase === 'idle' && <ExamHistory exams={recent.exams} running={recent.running} onResume={(e) => void exam.resume(e)} onOpen={(e) => void exam.open(e)} />}
            {examBusy && <ExamRunner x={exam} />}
            {exam.state.phase === 'finished' && <ExamResult x={exam} categories={categories} onArticle={onArticle} onDone={exam.reset} />}
          </>
        )}
      </div>
      <CodePanel target={target} onClose={closeCode} />
    </main>
  );
}
