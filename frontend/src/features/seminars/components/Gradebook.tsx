import { cellText, gradebookCsv, pivot, type GradebookRow } from '../utils/gradebook';
import { fmtWhen } from '../utils/time';

// A file name from the group's name: letters without diacritics, digits and dashes.
export function exportName(group: string): string {
  const base = group.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase();
  return `catalog-${base || 'grupa'}.csv`;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

// Students × assignments: each cell the work's state (not started … confirmed, late), a
// button to the submission where there is one; the table follows the work live.
export function Gradebook({ rows, live, groupName, onOpen }: { rows: GradebookRow[]; live: boolean; groupName: string; onOpen: (submissionId: string) => void }) {
  const t = pivot(rows);
  return (
    <section className="card" aria-labelledby="gradebook-title" data-live={live ? 'on' : 'off'} data-testid="gradebook">
      <div className="card-head">
        <h2 id="gradebook-title">Catalog</h2>
        <button type="button" disabled={rows.length === 0} onClick={() => download(exportName(groupName), gradebookCsv(rows))}>
          Exportă CSV
        </button>
      </div>
      {t.students.length === 0 || t.assignments.length === 0 ? (
        <p className="muted">{t.assignments.length === 0 ? 'Nicio temă încă.' : 'Niciun student în grupă încă.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="gradebook">
            <caption className="sr-only">Studenți și teme</caption>
            <thead>
              <tr>
                <th scope="col">Student</th>
                {t.assignments.map((a) => (
                  <th scope="col" key={a.id}>
                    {a.title}
                    <span className="muted deadline">termen {fmtWhen(a.deadline)}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.students.map((s) => (
                <tr key={s.id} className={s.active ? undefined : 'former'}>
                  <th scope="row">
                    {s.name} <span className="muted">@{s.username}</span>
                    {!s.active && <span className="muted"> (a ieșit din grupă)</span>}
                  </th>
                  {t.assignments.map((a) => {
                    const c = t.cell(s.id, a.id);
                    if (!c) return <td key={a.id} />;
                    const text = cellText(c);
                    return (
                      <td key={a.id} className={`state-${c.state}${c.late ? ' late' : ''}`} data-testid={`cell-${s.username}-${a.id}`}>
                        {c.submission_id ? (
                          <button type="button" className="link" onClick={() => onOpen(c.submission_id!)} aria-label={`${text}: deschide lucrarea lui ${s.name} la ${a.title}`}>
                            {text}
                          </button>
                        ) : (
                          text
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
