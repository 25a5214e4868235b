import { DOMAINS } from '../api/grile';
import { useCategories, useGrileProgress } from '../hooks/useGrileData';

// My Progress: per category, the grile mastered (next review at least 21 days away), in
// learning (answered, sooner) and new (never answered).
export function GrileProgress() {
  const rows = useGrileProgress();
  const cats = useCategories();
  if (!rows) return null;
  const name = (id: string) => cats.find((c) => c.id === id)?.name ?? id;
  const started = rows.filter((r) => r.mastered + r.learning > 0);
  return (
    <section className="card" aria-label="Grile">
      <h2>Grile</h2>
      {started.length === 0 ? (
        <p className="muted">Nu ai răspuns încă la nicio grilă. <a href="/grile">Începe să exersezi</a></p>
      ) : (
        <div className="table-wrap">
          <table className="grile-table">
            <thead><tr><th>Categoria</th><th>Stăpânite</th><th>În învățare</th><th>Noi</th></tr></thead>
            <tbody>
              {started.map((r) => (
                <tr key={r.category_id} data-testid="grile-progress-row">
                  <td>{name(r.category_id)} <span className="muted">· {DOMAINS.find((d) => d.code === r.domain)?.name}</span></td>
                  <td>{r.mastered}</td><td>{r.learning}</td><td>{r.new}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
