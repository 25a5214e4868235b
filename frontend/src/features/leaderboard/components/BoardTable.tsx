import type { BoardRow } from '../api/leaderboard';

// One board: place, username, university code, points. The caller's row is marked.
export function BoardTable({ rows, label }: { rows: BoardRow[]; label: string }) {
  return (
    <table className="board-table" aria-label={label}>
      <thead>
        <tr>
          <th scope="col" className="num">Loc</th>
          <th scope="col">Utilizator</th>
          <th scope="col">Univ.</th>
          <th scope="col" className="num">Puncte</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.rank} className={r.is_self ? 'self' : undefined} aria-current={r.is_self ? 'true' : undefined}>
            <td className="num">{r.rank}</td>
            <td className="name">
              {r.username}
              {r.is_self && <span className="you"> (tu)</span>}
            </td>
            <td className="uni">{r.university_code ?? '—'}</td>
            <td className="num">{r.points}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
