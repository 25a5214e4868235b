import type { Exam } from '../api/grile';

const roDate = (s: string) => new Date(s).toLocaleString('ro-RO', { day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit' });

// An exam still running (to go back to) and the latest results (to review).
export function ExamHistory({ exams, running, onResume, onOpen }: {
  exams: Exam[];
  running: Exam | null;
  onResume: (e: Exam) => void;
  onOpen: (e: Exam) => void;
}) {
  if (!exams.length) return null;
  const past = exams.filter((e) => e.id !== running?.id);
  return (
    <section className="card" aria-label="Simulările tale">
      {running && (
        <p className="banner">
          Ai o simulare în desfășurare ({running.question_count} grile). <button className="primary" onClick={() => onResume(running)}>Continuă simularea</button>
        </p>
      )}
      {past.length > 0 && (
        <>
          <h2>Simulările tale</h2>
          <ul className="list">
            {past.map((e) => (
              <li key={e.id} data-testid="past-exam">
                {roDate(e.started_at)} · {e.finished_at ? `${e.correct_count} din ${e.question_count} corecte` : 'timpul a expirat'}{' '}
                <button className="link" onClick={() => onOpen(e)}>{e.finished_at ? 'Revizuiește' : 'Vezi rezultatul'}</button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
