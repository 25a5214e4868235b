import { useState } from 'react';
import type { useExam } from '../hooks/useExam';
import { useAnswerKeys } from '../hooks/useKeys';
import { QuestionView } from './QuestionView';

const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

// The timed grid: question numbers (answered ones marked), the current question, the time
// left; answers are saved as they are chosen, and the exam ends at zero or when finished.
export function ExamRunner({ x }: { x: ReturnType<typeof useExam> }) {
  const { state: s, left } = x;
  const [confirm, setConfirm] = useState(false);
  const item = s.items[s.current];
  const running = s.phase === 'running';
  useAnswerKeys({
    toggle: x.toggle,
    enter: () => (s.current + 1 < s.items.length ? x.go(s.current + 1) : setConfirm(true)),
    prev: () => x.go(s.current - 1),
    next: () => x.go(s.current + 1),
  }, running);
  if (!item) return null;
  const answered = s.items.filter((i) => i.chosen.length).length;
  return (
    <section className="card grile-exam">
      <div className="exam-bar">
        <strong className={left < 60 ? 'error' : ''} role="timer" aria-label="Timp rămas">{clock(left)}</strong>
        <span className="muted">{answered} din {s.items.length} cu răspuns</span>
        <button className="primary" onClick={() => setConfirm(true)} disabled={!running}>Încheie simularea</button>
      </div>
      <nav className="exam-grid" aria-label="Grile">
        {s.items.map((it, i) => (
          <button key={it.position} className={[i === s.current ? 'current' : '', it.chosen.length ? 'answered' : ''].join(' ').trim()}
            aria-current={i === s.current ? 'step' : undefined} aria-label={`Grila ${i + 1}${it.chosen.length ? ', cu răspuns' : ''}`}
            onClick={() => x.go(i)}>{i + 1}</button>
        ))}
      </nav>
      <QuestionView q={item.question} header={<span className="grila-count">Grila {s.current + 1} din {s.items.length}</span>}
        chosen={item.chosen} onToggle={running ? x.toggle : undefined} onArticle={() => {}} />
      {s.error && <p className="error" role="alert">{s.error}</p>}
      <div className="row grile-actions">
        <span className="muted keys-help">1/2/3 sau a/b/c aleg · Enter: următoarea · ←/→</span>
        <button onClick={() => x.go(s.current - 1)} disabled={s.current === 0}>Anterioara</button>
        <button onClick={() => x.go(s.current + 1)} disabled={s.current + 1 >= s.items.length}>Următoarea</button>
      </div>
      {confirm && running && (
        <div className="banner exam-confirm" role="alertdialog" aria-label="Confirmă încheierea">
          <p>Încheii simularea? {s.items.length - answered > 0 ? `Ai ${s.items.length - answered} grile fără răspuns.` : 'Ai răspuns la toate grilele.'}</p>
          <div className="row">
            <button onClick={() => setConfirm(false)}>Continuă</button>
            <button className="primary" onClick={() => { setConfirm(false); void x.finish(); }}>Da, încheie</button>
          </div>
        </div>
      )}
    </section>
  );
}
