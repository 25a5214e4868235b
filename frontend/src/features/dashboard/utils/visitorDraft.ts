// The answer a visitor writes while trying a case without an account (an anonymous
// session may not write to the database). It stays in this browser until the account the
// visitor creates from it submits the answer, so nothing they wrote is lost on the way.
// (Drafts of signed-in students, per user and case, are drafts.ts.)
const KEY = 'casus.visitorDraft';

export type VisitorDraft = { caseId: string; text: string };

export function readVisitorDraft(): VisitorDraft | null {
  try {
    const d = JSON.parse(localStorage.getItem(KEY) ?? 'null') as VisitorDraft | null;
    return d && typeof d.caseId === 'string' && typeof d.text === 'string' ? d : null;
  } catch {
    return null;
  }
}

export function saveVisitorDraft(caseId: string, text: string): void {
  localStorage.setItem(KEY, JSON.stringify({ caseId, text }));
}

export function clearVisitorDraft(): void {
  localStorage.removeItem(KEY);
}
