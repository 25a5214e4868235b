// What a piece of seminar work is called, and numbers as Romanians write them (shared by
// the staff table and the student's "Teme").
export type WorkState = 'not_started' | 'in_progress' | 'submitted' | 'ai_graded' | 'confirmed' | 'scored';

export const STATE_LABEL: Record<WorkState, string> = {
  not_started: 'Neînceput',
  in_progress: 'În lucru',
  submitted: 'Predat',
  ai_graded: 'Notat de AI',
  confirmed: 'Confirmat',
  scored: 'Rezolvat',
};

// 7.5 → "7,5", 78 → "78" (a decimal comma, as Romanian Excel reads numbers).
export function fmtNum(n: number | string | null | undefined): string {
  if (n == null || n === '') return '';
  const v = Math.round(Number(n) * 100) / 100;
  return Number.isFinite(v) ? String(v).replace('.', ',') : '';
}

