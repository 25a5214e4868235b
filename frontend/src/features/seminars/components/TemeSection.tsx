import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { MyAssignment } from '../api/teme';
import { buckets, workLine, type Bucket } from '../utils/teme';
import { fmtWhen } from '../utils/time';
import { strictnessLabel } from '../../../lib/score';
import '../seminars.css';

const TITLES: Record<Bucket, string> = { due_soon: 'Termen apropiat', open: 'Deschise', finished: 'Încheiate' };

// The dashboard's "Teme": the student's seminar assignments (read by the route, api/teme),
// due soon first; a case opens on the dashboard (onOpenCase), where the assignment's
// settings apply.
export default function TemeSection({ list, onOpenCase }: { list: MyAssignment[]; onOpenCase: (caseId: string) => void }) {
  const [now] = useState(() => Date.now());
  if (list.length === 0) return null;
  const b = buckets(list, now);
  return (
    <section className="card teme" aria-labelledby="teme-title" data-testid="teme">
      <h2 id="teme-title">Teme</h2>
      {(['due_soon', 'open', 'finished'] as const).map((k) =>
        b[k].length === 0 ? null : (
          <div key={k} className={`teme-bucket ${k}`}>
            <h3>{TITLES[k]}</h3>
            <ul className="list">
              {b[k].map((a) => (
                <li key={a.assignment_id} data-testid="tema">
                  <div className="tema-head">
                    <strong>{a.title}</strong> <span className="muted">· {a.group_name}</span>
                  </div>
                  <div className="muted">
                    Termen: {fmtWhen(a.deadline)}
                    {a.kind === 'case' && <> · {strictnessLabel(a.strictness)}</>}
                    {a.kind === 'case' && !a.tutor_allowed && <> · fără tutore</>}
                  </div>
                  <div className="tema-state">{workLine(a)}</div>
                  {a.grade_comment && <p className="tema-comment">„{a.grade_comment}”</p>}
                  {a.kind === 'case' ? (
                    <button type="button" className={k === 'finished' ? undefined : 'primary'} onClick={() => a.case_id && onOpenCase(a.case_id)}>
                      Deschide speța {a.case_code}
                    </button>
                  ) : (
                    <Link to={`/grile?tema=${a.assignment_id}`}>Deschide grilele</Link>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ),
      )}
    </section>
  );
}
