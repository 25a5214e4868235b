import { useState } from 'react';
import { useQuery } from '../../../lib/query';
import { Link, useNavigate } from 'react-router-dom';
import { authActions } from '../../../lib/auth/store';
import { CodeViewer, type CodeId } from '../../../components/code-viewer/CodeViewer';
import { CaseView } from './CaseView';
import { AccountPrompt } from './Evaluation';
import { codeOf, firstEasyCase } from '../api/cases';
import { readVisitorDraft } from '../utils/visitorDraft';
import { useIsMobile } from '../hooks/useIsMobile';

// The case the visitor already started an answer to, else the first easy one.
async function visitorCase(): Promise<string | null> {
  return readVisitorDraft()?.caseId ?? firstEasyCase();
}

// "Încearcă o speță": a visitor signed in anonymously reads one easy case with the code
// viewer and may write an answer; saving it, the tutor and grading ask for an account.
export default function Trial() {
  const { signOut } = authActions;
  const nav = useNavigate();
  const caseId = useQuery(['visitor-case'], visitorCase).data;
  const [target, setTarget] = useState<{ code: CodeId; article: string; seq: number } | null>(null);
  const [askTutor, setAskTutor] = useState(false);
  // On a phone the case comes first, then the codes and the tutor below it, one column.
  const mobile = useIsMobile();
  return (
    <>
      <header className="app-header trial-header">
        <span className="brand-link">
          <span className="logo" aria-hidden>⚖</span> Casus <span className="badge">vizitator</span>
        </span>
        <nav>
          <Link to="/signup" className="button primary">Creează cont</Link>
          <button
            type="button"
            onClick={async () => {
              await signOut();
              nav('/login');
            }}
          >
            Ieși
          </button>
        </nav>
      </header>
      <p className="banner visitor" role="status">
        Încerci o speță fără cont. Poți citi cazul, articolele din coduri și îți poți scrie soluția; ca să o salvezi, să folosești tutorele sau evaluarea, creează un cont.
      </p>
      <div className={`dashboard no-sidebar trial${mobile ? ' mobile' : ''}`}>
        <main className="case-main">
          {caseId === undefined && <div className="skeleton tall" aria-busy="true" />}
          {caseId === null && <p className="empty">Nicio speță ușoară nu este disponibilă acum.</p>}
          {caseId && (
            <CaseView
              id={caseId}
              onArticle={(ref, num) => setTarget({ code: codeOf(ref), article: num, seq: performance.now() })}
            />
          )}
        </main>
        <aside className="right-panel">
          <div className="viewer-box" data-testid="viewer-box">
            <CodeViewer target={target} />
          </div>
          <section className="tutor visitor" aria-label="Casus AI">
            <h2>Casus AI</h2>
            <p className="muted">Tutorele te ghidează prin speță cu întrebări, fără să îți dea răspunsul.</p>
            {askTutor ? <AccountPrompt action="vorbești cu tutorele" /> : <button type="button" onClick={() => setAskTutor(true)}>Întreabă tutorele</button>}
          </section>
        </aside>
      </div>
    </>
  );
}
