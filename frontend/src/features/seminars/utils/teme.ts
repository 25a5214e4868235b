import type { MyAssignment } from '../api/teme';
import { STATE_LABEL, fmtNum, type WorkState } from './labels';

const DAY = 24 * 60 * 60 * 1000;
const DONE: WorkState[] = ['submitted', 'ai_graded', 'confirmed', 'scored'];

export type Bucket = 'due_soon' | 'open' | 'finished';

// The student's "Teme" in three lists: due within a day (still to hand in), open, and
// finished (deadline passed, or handed in with no more attempts that count).
export function bucketOf(a: Pick<MyAssignment, 'deadline' | 'state' | 'can_submit'>, now: number): Bucket {
  const left = Date.parse(a.deadline) - now;
  const handedIn = DONE.includes(a.state as WorkState);
  if (left < 0 || (handedIn && !a.can_submit)) return 'finished';
  return left <= DAY && !handedIn ? 'due_soon' : 'open';
}

export function buckets(list: MyAssignment[], now: number): Record<Bucket, MyAssignment[]> {
  const out: Record<Bucket, MyAssignment[]> = { due_soon: [], open: [], finished: [] };
  for (const a of [...list].sort((x, y) => x.deadline.localeCompare(y.deadline))) out[bucketOf(a, now)].push(a);
  out.finished.reverse();
  return out;
}

// "Predată · nota AI 78 · nota asistentului 80" and the like.
export function workLine(a: Pick<MyAssignment, 'state' | 'ai_score' | 'grade' | 'grade_source' | 'late' | 'kind'>): string {
  const parts = [STATE_LABEL[(a.state as WorkState) ?? 'not_started'] ?? a.state];
  if (a.ai_score != null && a.kind === 'case') parts.push(`nota AI ${fmtNum(a.ai_score)}`);
  if (a.grade != null) parts.push(a.grade_source === 'grile' ? `${fmtNum(a.grade)}% corecte` : `nota asistentului ${fmtNum(a.grade)}`);
  if (a.late) parts.push('întârziată');
  return parts.join(' · ');
}
