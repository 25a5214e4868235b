import { useState } from 'react';
import { strictnessLabel } from '../../../lib/score';
import type { CaseAssignment, StaffCriterion } from '../api/assignment';

const ZONE = 'Europe/Bucharest';
const when = (iso: string) => new Date(iso).toLocaleString('ro-RO', { timeZone: ZONE, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const num = (n: number | string) => String(Math.round(Number(n) * 100) / 100).replace('.', ',');

const STATE: Record<string, string> = {
  not_started: 'Nepredată',
  in_progress: 'În lucru',
  submitted: 'Predată, se evaluează',
  ai_graded: 'Predată și notată de AI; așteaptă nota asistentului',
  confirmed: 'Notată de asistent',
};

// The seminar assignment of the open case, on its solution panel: the settings the
// assistant fixed, the work handed in, the AI's grade, then the assistant's grade and
// comment (live: useCaseAssignment).
export function AssignmentBanner({ a, criteria }: { a: CaseAssignment; criteria: StaffCriterion[] }) {
  const counted = a.revisions_allowed + 1;
  const left = Math.max(0, counted - a.attempts_used);
  const [now] = useState(() => Date.now());
  const past = Date.parse(a.deadline) < now;
  return (
    <section className="tema-banner" aria-label="Temă de seminar" data-testid="tema-banner" data-state={a.state}>
      <h3>Temă: {a.title}</h3>
      <p className="muted">
        {a.group_name} · termen {when(a.deadline)} · {strictnessLabel(a.strictness)}, fixată de asistent · tutore {a.tutor_allowed ? 'permis' : 'nepermis'} ·{' '}
        {counted === 1 ? 'o singură predare contează' : `contează ${counted} predări`}
      </p>
      {a.instructions && <p>{a.instructions}</p>}
      <p data-testid="tema-state">
        {STATE[a.state] ?? a.state}
        {a.late && ' · predată după termen'}
        {a.ai_score != null && ` · nota AI: ${num(a.ai_score)}/100`}
      </p>
      {a.grade != null && (
        <p className="grade-of-record" data-testid="tema-grade">
          Nota asistentului: {num(a.grade)}/100{a.grade_source === 'ai_confirmed' ? ' (nota AI confirmată)' : ''}
        </p>
      )}
      {criteria.length > 0 && (
        <ul aria-label="Corecturile asistentului">
          {criteria.map((c) => (
            <li key={c.id} data-testid="staff-criterion">
              {c.id} {c.label}: {num(c.score)}/{c.max}{c.ai_score != null && c.ai_score !== c.score ? ` (AI: ${num(c.ai_score)})` : ''}{c.comment ? ` — ${c.comment}` : ''}
            </li>
          ))}
        </ul>
      )}
      {a.grade_comment && <p className="staff-comment" data-testid="tema-comment">Comentariul asistentului: „{a.grade_comment}”</p>}
      {!a.can_submit && (
        <p className="muted">
          {past && a.late_policy === 'refuse'
            ? 'Termenul a trecut și asistentul nu primește lucrări întârziate: o soluție nouă rămâne doar exercițiu.'
            : 'Ai folosit predările care contează: o soluție nouă rămâne doar exercițiu.'}
        </p>
      )}
      {a.can_submit && a.attempts_used > 0 && <p className="muted">Mai poți preda de {left === 1 ? 'o dată' : `${left} ori`}.</p>}
    </section>
  );
}
