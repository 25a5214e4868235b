// How a screen shows data that is loading or failed to load (lib/query), the same everywhere:
// a polite status line while loading, an alert with "Încearcă din nou" when the load failed.

export function Pending({ label = 'Se încarcă...' }: { label?: string }) {
  return <p className="muted" role="status">{label}</p>;
}

export function Failed({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <p className="error" role="alert">
      {message}
      {onRetry && (
        <>
          {' '}
          <button type="button" className="link" onClick={onRetry}>Încearcă din nou</button>
        </>
      )}
    </p>
  );
}
