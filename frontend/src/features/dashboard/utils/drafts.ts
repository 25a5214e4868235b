// Drafts of a solution, per user and case, in local storage (issue 19, bug 11): typed text
// survives a reload or a misclick. A draft is written on every edit, removed when the text
// is emptied or submitted for evaluation. Switching case with a draft asks first; if the
// student gives it up, the editor is cleared (the spec) but the draft is only marked
// discarded, and the case offers it back ("Restaurează ciorna") until something new is typed.

export type Draft = { text: string; level: number; discarded?: boolean; at: string };

const PREFIX = 'casus.draft.v1';
const key = (userId: string, caseId: string) => `${PREFIX}:${userId}:${caseId}`;

export function readDraft(userId: string | null | undefined, caseId: string): Draft | null {
  if (!userId) return null;
  try {
    const raw = localStorage.getItem(key(userId, caseId));
    if (!raw) return null;
    const d = JSON.parse(raw) as Draft;
    return typeof d?.text === 'string' && d.text.trim() ? d : null;
  } catch {
    return null;
  }
}

export function writeDraft(userId: string | null | undefined, caseId: string, text: string, level: number) {
  if (!userId) return;
  try {
    if (!text.trim()) localStorage.removeItem(key(userId, caseId));
    else localStorage.setItem(key(userId, caseId), JSON.stringify({ text, level, at: new Date().toISOString() } satisfies Draft));
  } catch {
    // Storage full or off: the editor still works, without the safety net.
  }
}

export function clearDraft(userId: string | null | undefined, caseId: string) {
  if (!userId) return;
  try {
    localStorage.removeItem(key(userId, caseId));
  } catch {
    // ignore
  }
}

export function discardDraft(userId: string | null | undefined, caseId: string) {
  const d = readDraft(userId, caseId);
  if (!d || !userId) return;
  try {
    localStorage.setItem(key(userId, caseId), JSON.stringify({ ...d, discarded: true }));
  } catch {
    // ignore
  }
}

// Unsaved work on this case: a draft the student has not given up.
export const hasUnsavedDraft = (userId: string | null | undefined, caseId: string | null) =>
  !!caseId && !!readDraft(userId, caseId) && !readDraft(userId, caseId)!.discarded;
