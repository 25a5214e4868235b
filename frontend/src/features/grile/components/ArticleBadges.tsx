import type { Citation } from '../api/grile';

// One badge per cited article; a click opens it in the code viewer.
export function ArticleBadges({ citations, onArticle }: { citations: Citation[]; onArticle: (c: Citation) => void }) {
  if (!citations.length) return null;
  return (
    <span className="articles">
      {citations.map((c) => (
        <button key={c.code + c.article} type="button" className="badge article" onClick={() => onArticle(c)} title="Deschide articolul în cod">
          {c.label}
        </button>
      ))}
    </span>
  );
}
