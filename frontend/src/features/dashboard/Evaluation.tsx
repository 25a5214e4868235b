import { useState } from 'react';
import { aiModel, supabase } from '../../lib/supabase';
import { aiClient } from '../../lib/ai';
import { useAuthStore } from '../../lib/auth/store';
import { toast } from '../../components/ui/toast';
import { CriteriaChart } from '../../components/charts/charts';
import { breakdownRows, scoreLabel, type CriterionRow } from './score';

const TEMPLATE = `Introducere: situația de fapt, calificarea juridică, problema de drept.
Premisa majoră: norma aplicabilă (articolele, condițiile).
Premisa minoră: faptele cazului raportate la normă.
Concluzie: soluția.`;

const ERROR = 'Ne pare rău, a apărut o eroare. Te rugăm să încerci din nou.';

type Result = { score: string; value: number; feedback: string; criteria: CriterionRow[] };

function passed(reply: string): boolean {
  try {
    const d = JSON.parse(reply.slice(reply.indexOf('{'), reply.lastIndexOf('}') + 1)) as { decision?: string; probability?: number };
    if (d.decision) return d.decision.toUpperCase() === 'PASSED';
    return (d.probability ?? 100) <= 30;
  } catch {
    return false;
  }
}

export function SolutionPanel({ caseId, aiOn }: { caseId: string; aiOn: boolean }) {
  const [level, setLevel] = useState(3);
  const [text, setText] = useState('');
  const [phase, setPhase] = useState<'idle' | 'detecting' | 'assessing'>('idle');
  const [blocked, setBlocked] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const evaluate = async () => {
    if (!text.trim()) {
      setError('Te rugăm să introduci soluția ta.');
      return;
    }
    const { session, user } = useAuthStore.getState();
    if (!session || !user) return;
    setError(null);
    setBlocked(false);
    setPhase('detecting');
    try {
      const sb = supabase();
      const { data: sub, error: insErr } = await sb
        .from('case_submissions')
        .insert({ user_id: user.id, case_id: caseId, submission_text: text, difficulty_rating: level, status: 'submitted' })
        .select('id')
        .single();
      if (insErr) throw insErr;
      const ai = await aiClient(session.access_token);
      const params = { model: aiModel(), max_tokens: 1024, messages: [{ role: 'user' as const, content: '-' }] };
      const det = await ai.messages.create(params, { headers: { 'X-Casus-Task': 'detect', 'X-Casus-Submission': sub.id } });
      const detText = det.content[0]?.type === 'text' ? det.content[0].text : '';
      if (!passed(detText)) {
        setBlocked(true);
        toast.error('Text generat de AI detectat', 'Te rugăm să scrii soluția cu propriile tale cuvinte.');
        return;
      }
      setPhase('assessing');
      await ai.messages.create({ ...params, max_tokens: 4096 }, { headers: { 'X-Casus-Task': 'grade', 'X-Casus-Submission': sub.id } });
      const { data: graded } = await sb.from('case_submissions').select('score, score_value, feedback_text, score_breakdown').eq('id', sub.id).single();
      if (!graded?.score) throw new Error('Evaluarea nu a putut fi citită.');
      setResult({ score: graded.score, value: Number(graded.score_value), feedback: graded.feedback_text ?? '', criteria: breakdownRows(graded.score_breakdown) });
      toast.success('Evaluare completă!', 'Soluția ta a fost evaluată cu succes.');
    } catch (e) {
      setError(ERROR);
      toast.error('Eroare la evaluare', (e as Error).message);
    } finally {
      setPhase('idle');
    }
  };
  const busy = phase !== 'idle';
  return (
    <div className="solution">
      {!aiOn && (
        <p className="banner">
          Funcțiile AI sunt oprite pe acest server: evaluarea și tutorele au nevoie de un furnizor AI configurat (ANTHROPIC_API_KEY, vezi README).
        </p>
      )}
      <fieldset className="strictness">
        <legend>Exigența corectorului</legend>
        {([[1, 'Ușor', 1], [3, 'Mediu', 2], [5, 'Greu', 3]] as const).map(([v, l, hammers]) => (
          <label key={v}>
            <input type="radio" name="strictness" checked={level === v} onChange={() => setLevel(v)} />
            {'🔨'.repeat(hammers)} {l} ({v})
          </label>
        ))}
      </fieldset>
      <textarea rows={15} placeholder={TEMPLATE} value={text} onChange={(e) => setText(e.target.value)} aria-label="Soluția ta" />
      {error && <p className="error" role="alert">{error}</p>}
      {blocked && (
        <p className="banner" role="alert">
          🤖 Hopa! Corectorul nostru a simțit miros de algoritm. Juriștii buni își scriu singuri raționamentele — încearcă din nou, cu propriile tale cuvinte.
        </p>
      )}
      <button className="primary" disabled={!text || busy || !aiOn} onClick={evaluate} title={aiOn ? undefined : 'Evaluarea AI nu este configurată pe acest server'}>
        {phase === 'detecting' ? 'Verificare AI în curs...' : phase === 'assessing' ? 'Evaluare în curs...' : 'Evaluează Soluția'}
      </button>
      {result && (
        <section className="card result" aria-label="Evaluare Completă">
          <h3>Evaluare Completă</h3>
          <p className="big">{scoreLabel(result.score, result.value)}</p>
          {result.criteria.some((c) => c.score != null) && <CriteriaChart rows={result.criteria} />}
          <p className="feedback">{result.feedback}</p>
          <button
            onClick={() => {
              setResult(null);
              setText('');
            }}
          >
            Resetează
          </button>
        </section>
      )}
    </div>
  );
}
