import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useUserId } from '../../../lib/auth/store';
import { useMyProgress } from '../hooks/useMyProgress';
import type { AppealState, Progress, SeminarWork } from '../api/progress';
import { MyGeneratedCases } from './MyGeneratedCases';
import { ScoreOverTime } from './ScoreOverTime';
import { CriteriaOverview } from './CriteriaOverview';
import { attemptLabel, caseLink, groupByCase, type Attempt } from '../utils/attempts';
import { overallVerdict, strictnessLabel } from '../../../lib/score';
import { countOf } from '../../../lib/plural';

type Sub = Attempt;
const roDate = (s: string) => new Date(s).toLocaleDateString('ro-RO', { day: 'numeric', month: 'long', year: 'numeric' });

const APPEAL: Record<AppealState['status'], string> = {
  pending: 'Verificare umană: în așteptare',
  released: 'Verificare umană: eliberată pentru evaluare',
  confirmed: 'Verificare umană: blocare confirmată',
};

// One attempt: code, score with the strictness it was graded at, date, feedback, and the
// outcome of a human check when one was asked for.
const num = (n: number | string) => String(Math.round(Number(n) * 100) / 100).replace('.', ',');

function AttemptRow({ s, appeal, seminar }: { s: Sub; appeal?: AppealState; seminar?: SeminarWork }) {
  return (
    <div data-testid="submission">
      <strong>{s.case_code}</strong> · <span className={`score state-${s.state}`}>{attemptLabel(s)}</span> · <span className="strictness-tag">{strictnessLabel(s.difficulty_rating)}</span> · {roDate(s.submitted_at)}
      <div>{s.case_title}</div>
      {(s.state === 'blocked' || s.state === 'failed') && <Link to={caseLink(s.case_id)}>Deschide speța</Link>}
      {appeal && (
        <div className={`appeal-outcome ${appeal.status}`} data-testid="appeal-outcome">
          {APPEAL[appeal.status]}
          {appeal.status === 'confirmed' && appeal.decision_reason ? ` — ${appeal.decision_reason}` : ''}
        </div>
      )}
      {seminar && (
        <div className="seminar-outcome" data-testid="seminar-outcome">
          Temă de seminar{seminar.late ? ' · predată după termen' : ''}
          {seminar.grade ? ` · nota asistentului: ${num(seminar.grade.score)}/100${seminar.grade.source === 'ai_confirmed' ? ' (nota AI confirmată)' : ''}` : ' · așteaptă nota asistentului'}
          {seminar.grade?.comment && <div className="staff-comment">„{seminar.grade.comment}”</div>}
        </div>
      )}
      <div className="muted">{s.feedback_text ? (overallVerdict(s.feedback_text) ?? s.feedback_text).slice(0, 150) : s.state === 'failed' ? 'Modelul AI nu a răspuns. Textul tău este păstrat: deschide speța și trimite-l din nou.' : 'Așteptăm evaluarea...'}</div>
    </div>
  );
}

// My Progress. Sections of other features (the grile's progress) come in as props: the
// route (app/routes) composes them, so this feature imports no other.
export default function Reporting({ grile }: { grile?: ReactNode }) {
  const userId = useUserId();
  const { subs, convs, progress, graded, appeals, seminar } = useMyProgress(userId);
  const completed = progress.filter((p) => p.status === 'completed');
  const scored = subs.filter((s) => s.score_value != null);
  const avg = scored.length ? Math.round(scored.reduce((a, s) => a + Number(s.score_value), 0) / scored.length) : null;
  const byDate = new Map<string, Progress[]>();
  for (const p of [...completed].sort((a, b) => (b.completed_at ?? '').localeCompare(a.completed_at ?? ''))) {
    const d = roDate(p.completed_at!);
    byDate.set(d, [...(byDate.get(d) ?? []), p]);
  }
  const inProgress = progress.filter((p) => p.status !== 'completed');
  return (
    <main className="page">
      <div className="cards">
        <section className="card stat"><h3>Completed</h3><p className="big">{completed.length}</p></section>
        <section className="card stat"><h3>Submissions</h3><p className="big">{subs.length}</p></section>
        <section className="card stat"><h3>Avg Score %</h3><p className="big">{avg ?? '—'}</p></section>
      </div>
      <ScoreOverTime subs={subs} />
      <CriteriaOverview graded={graded} />
      {grile}
      <section className="card">
        <h2>Submitted Solutions</h2>
        {subs.length === 0 && <p className="muted">Nu ai soluții trimise încă</p>}
        <ul className="list">
          {groupByCase(subs).map((g) => (
            <li key={g.case_id} data-testid="case-attempts">
              <AttemptRow s={g.latest} appeal={appeals.get(g.latest.id)} seminar={seminar.get(g.latest.id)} />
              {g.earlier.length > 0 && (
                <details className="earlier">
                  <summary>{g.earlier.length === 1 ? 'O încercare anterioară' : `${g.earlier.length} încercări anterioare`}</summary>
                  <ul className="list">
                    {g.earlier.map((s) => (
                      <li key={s.id}>
                        <AttemptRow s={s} appeal={appeals.get(s.id)} seminar={seminar.get(s.id)} />
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </li>
          ))}
        </ul>
      </section>
      <section className="card">
        <h2>AI Conversations</h2>
        {convs.length === 0 && <p className="muted">Nu ai conversații încă</p>}
        {convs.map((c) => (
          <details key={c.id}>
            <summary>{c.cases ? `${c.cases.case_code} — ${c.cases.title}` : 'General'} · {countOf(c.message_count, 'mesaj', 'mesaje')}</summary>
            {c.conversation_data.map((m, i) => (
              <p key={i}><strong>{m.role === 'user' ? 'Tu' : m.role === 'assistant' ? 'Casus AI' : m.role}</strong> <span className="muted">{new Date(m.timestamp).toLocaleTimeString('ro-RO')}</span><br />{m.content}</p>
            ))}
          </details>
        ))}
      </section>
      <section className="card">
        <h2>Cases Overview</h2>
        {progress.length === 0 && <p className="muted">Nu ai început încă niciun caz</p>}
        {[...byDate.entries()].map(([d, list]) => (
          <div key={d}><h3>{d}</h3><ul>{list.map((p) => <li key={p.case_id}>{p.case_code} — {p.case_title}</li>)}</ul></div>
        ))}
        {inProgress.length > 0 && (<div><h3>In Progress</h3><ul>{inProgress.map((p) => <li key={p.case_id}>{p.case_code} — {p.case_title}</li>)}</ul></div>)}
      </section>
      <MyGeneratedCases />
    </main>
  );
}
