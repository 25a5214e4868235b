import { STRICTNESS, strictnessLabel, type CriterionRow, type ScorePoint } from '../../lib/score';

// The strictness a score was graded at, as a one-letter mark on the chart (U, M, G).
const mark = (level: number | null | undefined) => (level != null && STRICTNESS[level] ? STRICTNESS[level][0] : '');

// Small inline SVG charts (no chart library).

// A date label under the last point is right-aligned on it, so it ends inside the chart
// instead of half past its right edge.
const edgeAnchor = (i: number, n: number) => (n > 1 && i === n - 1 ? 'end' : 'middle');

// Scores over time: one point per graded submission, 0-100, with the completion line (50).
export function ScoreChart({ points, width = 640, height = 200 }: { points: ScorePoint[]; width?: number; height?: number }) {
  // The top leaves room for the letter above a point at 100 (walkthrough 3, bug 33).
  const pad = { l: 34, r: 12, t: 24, b: 26 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const x = (i: number) => pad.l + (points.length <= 1 ? w / 2 : (i * w) / (points.length - 1));
  const y = (v: number) => pad.t + h - (Math.max(0, Math.min(100, v)) * h) / 100;
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const day = (s: string) => new Date(s).toLocaleDateString('ro-RO', { day: 'numeric', month: 'short' });
  return (
    <svg className="chart score-chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Evoluția punctajelor: ${points.map((p) => `${p.label} ${p.value}${p.level != null && STRICTNESS[p.level] ? ` (${STRICTNESS[p.level]})` : ''}`).join(', ')}`}>
      {[0, 50, 100].map((v) => (
        <g key={v}>
          <line x1={pad.l} x2={width - pad.r} y1={y(v)} y2={y(v)} className={v === 50 ? 'grid pass' : 'grid'} />
          <text x={pad.l - 6} y={y(v) + 4} textAnchor="end" className="axis">{v}</text>
        </g>
      ))}
      {points.length > 1 && <path d={path} className="line" fill="none" />}
      {points.map((p, i) => (
        <g key={i} data-testid="score-point">
          <circle cx={x(i)} cy={y(p.value)} r={4.5} className={p.value > 50 ? 'pt pass' : 'pt'}>
            <title>{`${p.label} — ${p.value} puncte, ${strictnessLabel(p.level)} (${day(p.at)})`}</title>
          </circle>
          {mark(p.level) && (
            <text x={x(i)} y={y(p.value) - 8} textAnchor="middle" className="axis strictness-mark">{mark(p.level)}</text>
          )}
          {(points.length <= 8 || i === 0 || i === points.length - 1) && (
            <text x={x(i)} y={height - 8} textAnchor={edgeAnchor(i, points.length)} className="axis">{day(p.at)}</text>
          )}
        </g>
      ))}
    </svg>
  );
}

// Points per criterion against each maximum: one row per criterion with its bar, its
// points and the grader's comment beside them (an HTML list, so the comments read as text).
export function CriteriaChart({ rows }: { rows: CriterionRow[] }) {
  return (
    <ul className="criteria" aria-label="Punctaj pe criterii">
      {rows.map((r) => {
        const frac = r.score == null ? 0 : r.score / r.max;
        const band = frac >= 0.7 ? 'good' : frac >= 0.5 ? 'mid' : 'low';
        return (
          <li key={r.code} data-testid="criterion">
            <span className="label"><span className="c-code">{r.code}</span> {r.label}</span>
            <span className="bar" aria-hidden><span className={band} style={{ width: `${Math.round(frac * 100)}%` }} /></span>
            <span className="value">{r.score == null ? `–/${r.max}` : `${r.score}/${r.max}`}</span>
            <span className="comment">{r.comment ?? ''}</span>
          </li>
        );
      })}
    </ul>
  );
}

// One criterion's share of its maximum per graded attempt, oldest first, as a small line;
// each point names the strictness it was graded at.
export function ShareSparkline({ label, points, width = 120, height = 28 }: { label: string; points: { at: string; share: number; level: number | null }[]; width?: number; height?: number }) {
  const x = (i: number) => 4 + (points.length <= 1 ? (width - 8) / 2 : (i * (width - 8)) / (points.length - 1));
  const y = (v: number) => 4 + (1 - Math.max(0, Math.min(1, v))) * (height - 8);
  const day = (s: string) => new Date(s).toLocaleDateString('ro-RO', { day: 'numeric', month: 'short' });
  const pct = (v: number) => `${Math.round(v * 100)}%`;
  return (
    <svg className="chart sparkline" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img"
      aria-label={`${label} în timp: ${points.map((p) => `${pct(p.share)}${p.level != null && STRICTNESS[p.level] ? ` (${STRICTNESS[p.level]})` : ''}`).join(', ')}`}>
      {points.length > 1 && <path d={points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.share).toFixed(1)}`).join(' ')} className="line" fill="none" />}
      {points.map((p, i) => (
        <circle key={i} cx={x(i)} cy={y(p.share)} r={2.5} className={p.share >= 0.5 ? 'pt pass' : 'pt'}>
          <title>{`${day(p.at)} — ${pct(p.share)}, ${strictnessLabel(p.level)}`}</title>
        </circle>
      ))}
    </svg>
  );
}
