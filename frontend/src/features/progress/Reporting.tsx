import { useEffect, useState } from 'react';
import { supabase } from '../../lib/supabase';
import { useAuth } from '../../lib/auth/store';
import { MyGeneratedCases } from './MyGeneratedCases';
import { ScoreOverTime } from './ScoreOverTime';

type Sub = { id: string; case_code: string; case_title: string; score: string | null; score_value: number | null; feedback_text: string | null; submitted_at: string };
type Conv = { id: string; case_id: string | null; conversation_data: { role: string; content: string; timestamp: string }[]; message_count: number; last_message_at: string; cases: { case_code: string; title: string } | null };
type Progress = { case_id: string; case_code: string; case_title: string; status: string; completed_at: string | null };

const roDate = (s: string) => new Date(s).toLocaleDateString('ro-RO', { day: 'numeric', month: 'long', year: 'numeric' });

export default function Reporting() {
  const { user } = useAuth();
  const [subs, setSubs] = useState<Sub[]>([]);
  const [convs, setConvs] = useState<Conv[]>([]);
  const [progress, setProgress] = useState<Progress[]>([]);
  useEffect(() => {
    if (!user) return;
    const sb = supabase();
    const load = () => {
      sb.from('submissions_with_details').select('id, case_code, case_title, score, score_value, feedback_text, submitted_at').eq('user_id', user.id).order('submitted_at', { ascending: false })
        .then(({ data }) => setSubs((data as Sub[]) ?? []));
      sb.from('chat_conversations').select('id, case_id, conversation_data, message_count, last_message_at, cases(case_code, title)').eq('user_id', user.id).gt('message_count', 0).order('last_message_at', { ascending: false })
        .then(({ data }) => setConvs((data as unknown as Conv[]) ?? []));
      sb.from('case_progress').select('case_id, case_code, case_title, status, completed_at').eq('user_id', user.id)
        .then(({ data }) => setProgress((data as Progress[]) ?? []));
    };
    load();
    // Grades land live, also from another tab or device.
    const ch = sb.channel(`progress-${user.id}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'case_submissions', filter: `user_id=eq.${user.id}` }, load)
      .subscribe();
    return () => {
      sb.removeChannel(ch);
    };
  }, [user]);
  const completed = progress.filter((p) => p.status === 'completed');
  const scored = subs.filter((s) => s.score_value != null);
  const avg = scored.length ? Math.round(scored.reduce((a, s) => a + Number(s.score_value), 0) / scored.length) : 0;
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
        <section className="card stat"><h3>Avg Score %</h3><p className="big">{avg}</p></section>
      </div>
      <ScoreOverTime subs={subs} />
      <section className="card">
        <h2>Submitted Solutions</h2>
        {subs.length === 0 && <p className="muted">Nu ai soluții trimise încă</p>}
        <ul className="list">
          {subs.map((s) => (
            <li key={s.id} data-testid="submission">
              <strong>{s.case_code}</strong> · <span className="score">{s.score ?? 'În curs'}</span> · {roDate(s.submitted_at)}
              <div>{s.case_title}</div>
              <div className="muted">{s.feedback_text ? s.feedback_text.slice(0, 150) : 'Așteptăm evaluarea...'}</div>
            </li>
          ))}
        </ul>
      </section>
      <section className="card">
        <h2>AI Conversations</h2>
        {convs.length === 0 && <p className="muted">Nu ai conversații încă</p>}
        {convs.map((c) => (
          <details key={c.id}>
            <summary>{c.cases ? `${c.cases.case_code} — ${c.cases.title}` : 'General'} · {c.message_count} mesaje</summary>
            {c.conversation_data.map((m, i) => (
              <p key={i}><strong>{m.role}</strong> <span className="muted">{new Date(m.timestamp).toLocaleTimeString('ro-RO')}</span><br />{m.content}</p>
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
