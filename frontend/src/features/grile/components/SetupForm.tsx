import { useState, type FormEvent } from 'react';
import { DOMAINS, LEVELS, type Category, type Domain, type Filters, type Level } from '../api/grile';

// Domain, categories, level and count (and, for an exam, the minutes).
export function SetupForm({ categories, exam, busy, onStart }: {
  categories: Category[];
  exam?: boolean;
  busy: boolean;
  onStart: (f: Filters, minutes: number) => void;
}) {
  const [domain, setDomain] = useState<Domain | ''>('');
  const [picked, setPicked] = useState<string[]>([]);
  const [level, setLevel] = useState<Level | ''>('');
  const [count, setCount] = useState(exam ? 30 : 10);
  const [minutes, setMinutes] = useState(45);
  const shown = categories.filter((c) => c.domain === domain);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onStart({ domain: domain || null, categories: picked.filter((id) => shown.some((c) => c.id === id)), level: level || null, count }, minutes);
  };
  return (
    <form className="grile-setup" onSubmit={submit} aria-label={exam ? 'Configurează simularea' : 'Configurează exersarea'}>
      <label>
        Domeniu
        <select value={domain} onChange={(e) => { setDomain(e.target.value as Domain | ''); setPicked([]); }}>
          <option value="">Toate domeniile</option>
          {DOMAINS.map((d) => <option key={d.code} value={d.code}>{d.name}</option>)}
        </select>
      </label>
      {shown.length > 0 && (
        <fieldset className="grile-cats">
          <legend>Categorii <span className="muted">(niciuna aleasă = toate)</span></legend>
          {shown.map((c) => (
            <label key={c.id}>
              <input type="checkbox" checked={picked.includes(c.id)}
                onChange={(e) => setPicked((p) => (e.target.checked ? [...p, c.id] : p.filter((x) => x !== c.id)))} />
              {c.name}
            </label>
          ))}
        </fieldset>
      )}
      <label>
        Nivel
        <select value={level} onChange={(e) => setLevel(e.target.value as Level | '')}>
          <option value="">Toate nivelurile</option>
          {LEVELS.map((l) => <option key={l} value={l}>{l}</option>)}
        </select>
      </label>
      <label>
        Număr de grile
        <input type="number" min={1} max={100} value={count} onChange={(e) => setCount(Math.max(1, Math.min(100, Number(e.target.value) || 1)))} />
      </label>
      {exam && (
        <label>
          Durata (minute)
          <input type="number" min={1} max={240} value={minutes} onChange={(e) => setMinutes(Math.max(1, Math.min(240, Number(e.target.value) || 1)))} />
        </label>
      )}
      <button type="submit" className="primary" disabled={busy}>{exam ? 'Începe simularea' : 'Începe exersarea'}</button>
    </form>
  );
}
