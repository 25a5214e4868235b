// A row of tabs choosing one value; arrows move between them, as a tablist should.
export function Tabs<T extends string>({ label, options, value, onChange, controls }: {
  label: string;
  options: { value: T; label: string }[];
  value: T;
  onChange: (v: T) => void;
  controls: string;
}) {
  return (
    <div role="tablist" aria-label={label} className="board-tabs">
      {options.map((o, i) => (
        <button
          key={o.value}
          type="button"
          role="tab"
          aria-selected={o.value === value}
          aria-controls={controls}
          tabIndex={o.value === value ? 0 : -1}
          className={o.value === value ? 'active' : undefined}
          onClick={() => onChange(o.value)}
          onKeyDown={(e) => {
            if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
            e.preventDefault();
            const next = options[(i + (e.key === 'ArrowRight' ? 1 : options.length - 1)) % options.length];
            onChange(next.value);
            const buttons = e.currentTarget.parentElement?.querySelectorAll<HTMLButtonElement>('[role="tab"]');
            buttons?.[options.indexOf(next)]?.focus();
          }}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
