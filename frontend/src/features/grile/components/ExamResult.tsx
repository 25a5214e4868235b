import type { Category, Citation } from '../api/grile';
import type { useExam } from '../hooks/useExam';
import { QuestionView } from './QuestionView';

// The score as the bar exam counts it, per category, then every question with its key.
export function ExamResult({ x, categories, onArticle, onDone }: {
  x: ReturnType<typeof useExam>;
  categories: Category[];
  onArticle: (c: Citation) => void;
  onDone: () => void;
}) {
  const { exam, review } = x.state;
  if (!exam) return null;
  const name = (id: string) => categories.find((c) => c.id === id)?.name ?? id;
  const pct = exam.question_count ? Math.round(((exam.correct_count ?? 0) * 100) / exam.question_count) : 0;
  return (
    <section className="card grile-result" aria-label="Rezultatul simulării">
      <h2>Rezultat</h2>
      <p className="big" data-testid="exam-score">{exam.correct_count} din {exam.question_count} grile corecte ({pct}%)</p>
      <p className="muted">O grilă se punctează numai dacă ai ales exact variantele corecte.</p>
      <table className="grile-table">
        <thead><tr><th>Categoria</th><th>Corecte</th></tr></thead>
        <tbody>
          {x.results.map((r) => (
            <tr key={r.category_id} data-testid="category-result"><td>{name(r.category_id)}</td><td>{r.correct} / {r.total}</td></tr>
          ))}
        </tbody>
      </table>
      <button className="primary" onClick={onDone}>Simulare nouă</button>
      <h3>Revizuiește grilele</h3>
      <ol className="exam-review">
        {review.map((r) => (
          <li key={r.question_position} data-testid="review-item">
            <p className={`grila-verdict ${r.is_correct ? 'right' : 'wrong'}`}>
              {r.is_correct ? 'Corect' : r.chosen?.length ? `Greșit — ai ales ${r.chosen.join(', ')}` : 'Fără răspuns'}
            </p>
            <QuestionView q={r} categoryName={name(r.category_id)} chosen={r.chosen ?? []}
              header={<span className="grila-count">Grila {r.question_position}</span>}
              revealed={{ correct: r.correct, explanations: r.explanations, citations: r.citations }} onArticle={onArticle} />
          </li>
        ))}
      </ol>
    </section>
  );
}
