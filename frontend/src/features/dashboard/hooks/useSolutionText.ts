import { useState } from 'react';
import { clearDraft, readDraft, writeDraft } from '../utils/drafts';
import { clearVisitorDraft, readVisitorDraft, saveVisitorDraft } from '../utils/visitorDraft';

export type DraftNote = 'restored' | 'offered' | null;

// The text and strictness of the solution editor, with their draft in local storage: every
// edit is kept until the text is submitted (issue 19, bug 11); a draft given up is offered
// back; a visitor's answer (and, once they have an account, the answer they wrote as one)
// comes back on its case.
export function useSolutionText(caseId: string, userId: string | null, visitor: boolean) {
  const [initial] = useState(() => {
    const d = readDraft(userId, caseId);
    if (d) return d;
    const v = readVisitorDraft();
    return v?.caseId === caseId ? { text: v.text, level: 3, at: '', discarded: false } : null;
  });
  const [note, setNote] = useState<DraftNote>(initial ? (initial.discarded ? 'offered' : 'restored') : null);
  const [level, setLevelState] = useState(initial && !initial.discarded ? initial.level : 3);
  const [text, setText] = useState(initial && !initial.discarded ? initial.text : '');
  return {
    hadDraft: initial != null,
    note,
    text,
    level,
    edit(next: string) {
      setText(next);
      writeDraft(userId, caseId, next, level);
      if (visitor || readVisitorDraft()?.caseId === caseId) saveVisitorDraft(caseId, next);
      if (note === 'offered') setNote(null);
    },
    setLevel(next: number) {
      setLevelState(next);
      if (text.trim()) writeDraft(userId, caseId, text, next);
    },
    restore() {
      const d = readDraft(userId, caseId);
      if (d) {
        setText(d.text);
        setLevelState(d.level);
        writeDraft(userId, caseId, d.text, d.level);
      }
      setNote('restored');
    },
    discard() {
      clearDraft(userId, caseId);
      if (note === 'restored') setText('');
      setNote(null);
    },
    // Submitted: the text is the submission's now, no longer a draft.
    submitted() {
      clearDraft(userId, caseId);
      if (readVisitorDraft()?.caseId === caseId) clearVisitorDraft();
      setNote(null);
    },
    // What the server recorded for this case (an answer under appeal, a failed one).
    load(next: string, nextLevel: number, keepTyped: boolean) {
      setText((t) => (keepTyped && t ? t : next));
      setLevelState(nextLevel);
    },
    // A graded answer taken up again, or a fresh start.
    replace(next: string, nextLevel: number) {
      setText(next);
      setLevelState(nextLevel);
      if (!next) clearDraft(userId, caseId);
    },
  };
}

export type SolutionText = ReturnType<typeof useSolutionText>;
