// The staff table (students × assignments) from seminar_gradebook's rows, and what each
// cell says. Pure, so the screen, the CSV export and the tests share one reading.
import { STATE_LABEL, fmtNum, type WorkState } from './labels';

export { STATE_LABEL, fmtNum, type WorkState };

export type GradebookRow = {
  student_id: string;
  username: string;
  name: string;
  active: boolean;
  assignment_id: string;
  assignment_title: string;
  kind: 'case' | 'grile';
  deadline: string;
  state: WorkState;
  submission_id: string | null;
  exam_id: string | null;
  submitted_at: string | null;
  late: boolean;
  ai_score: number | null;
  grade: number | null;
  grade_source: 'ai_confirmed' | 'staff' | 'grile' | null;
  attempts: number;
};

// The score a cell shows: the grade of record, else the AI's.
export function cellScore(r: GradebookRow): number | null {
  if (r.grade != null) return Number(r.grade);
  if (r.ai_score != null) return Number(r.ai_score);
  return null;
}

// "Notat de AI · 78", "Confirmat · 80 · întârziat", "Neînceput".
export function cellText(r: GradebookRow): string {
  const score = cellScore(r);
  const parts = [STATE_LABEL[r.state]];
  if (score != null && r.state !== 'not_started') parts.push(fmtNum(score));
  if (r.late) parts.push('întârziat');
  return parts.join(' · ');
}

export type Student = { id: string; username: string; name: string; active: boolean };
export type AssignmentCol = { id: string; title: string; kind: 'case' | 'grile'; deadline: string };
export type Table = { students: Student[]; assignments: AssignmentCol[]; cell: (student: string, assignment: string) => GradebookRow | undefined };

// Rows → a table: students by name (current members first), assignments by deadline.
export function pivot(rows: GradebookRow[]): Table {
  const students = new Map<string, Student>();
  const assignments = new Map<string, AssignmentCol>();
  const cells = new Map<string, GradebookRow>();
  for (const r of rows) {
    if (!students.has(r.student_id)) students.set(r.student_id, { id: r.student_id, username: r.username, name: r.name, active: r.active });
    if (!assignments.has(r.assignment_id)) assignments.set(r.assignment_id, { id: r.assignment_id, title: r.assignment_title, kind: r.kind, deadline: r.deadline });
    cells.set(`${r.student_id}/${r.assignment_id}`, r);
  }
  return {
    students: [...students.values()].sort((a, b) => Number(b.active) - Number(a.active) || a.name.localeCompare(b.name, 'ro')),
    assignments: [...assignments.values()].sort((a, b) => a.deadline.localeCompare(b.deadline) || a.title.localeCompare(b.title, 'ro')),
    cell: (s, a) => cells.get(`${s}/${a}`),
  };
}

// One CSV field: quoted when it holds the separator, a quote or a line break.
function field(v: string): string {
  return /[;"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

// The grade table as a CSV Romanian Excel opens as it is: UTF-8 with a BOM, ";" between
// fields, decimal commas, CRLF line ends. Per assignment two columns: the grade (grade of
// record, else the AI's score) and its state (with "întârziat").
export function gradebookCsv(rows: GradebookRow[]): string {
  const t = pivot(rows);
  const head = ['Nume', 'Utilizator', 'Membru activ', ...t.assignments.flatMap((a) => [`${a.title} – notă`, `${a.title} – stare`])];
  const lines = [head];
  for (const s of t.students) {
    const line = [s.name, s.username, s.active ? 'da' : 'nu'];
    for (const a of t.assignments) {
      const c = t.cell(s.id, a.id);
      const score = c ? cellScore(c) : null;
      line.push(c && score != null && c.state !== 'not_started' ? fmtNum(score) : '');
      line.push(c ? [STATE_LABEL[c.state], ...(c.late ? ['întârziat'] : [])].join(', ') : '');
    }
    lines.push(line);
  }
  return '\uFEFF' + lines.map((l) => l.map(field).join(';')).join('\r\n') + '\r\n';
}
