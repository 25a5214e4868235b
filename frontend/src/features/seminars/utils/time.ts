// Seminar times are instants; people read and write them as Bucharest wall time, whatever
// the browser's own zone.
export const ZONE = 'Europe/Bucharest';

// "14 mar. 2026, 18:00" in Bucharest time.
export function fmtWhen(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('ro-RO', { timeZone: ZONE, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

// The value of a datetime-local input showing this instant in Bucharest ("2026-03-14T18:00");
// the RPCs read such a value as Bucharest wall time.
export function bucharestInput(at: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

const DAY = 24 * 60 * 60 * 1000;

// Where an assignment stands for a student: not open yet, open, due within a day, past.
export type Phase = 'upcoming' | 'open' | 'due_soon' | 'past';
export function phaseOf(opensAt: string, deadline: string, now: number = Date.now()): Phase {
  const d = Date.parse(deadline);
  if (now < Date.parse(opensAt)) return 'upcoming';
  if (now > d) return 'past';
  return d - now <= DAY ? 'due_soon' : 'open';
}

// The current academic year, e.g. "2025-2026" from September 2025 to August 2026.
export function academicYear(at: Date = new Date()): string {
  const y = at.getFullYear();
  return at.getMonth() >= 8 ? `${y}-${y + 1}` : `${y - 1}-${y}`;
}
