import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { CaseEditor } from './CaseEditor';
import { newItem, toPayload, type Draft } from '../../lib/caseDraft';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const start = (): Draft => ({
  case_code: 'PEN2ABC', title: 'T', legal_problem: 'P', case_description: 'D', question: 'Q', category: '', subcategory: '',
  level: 'mediu', week_number: 2, domain: 'penal', articles: [],
  steps: [newItem('unu'), newItem('doi'), newItem('trei')], hints: [newItem('h1'), newItem('h2')],
});

// The last draft the editor reported.
let latest: Draft;
function Harness() {
  const [d, setD] = useState(start);
  return (
    <CaseEditor
      draft={d}
      onChange={(next) => {
        latest = next;
        setD(next);
      }}
    />
  );
}

const val = (label: string) => (screen.getByLabelText(label) as HTMLTextAreaElement).value;

describe('case editor', () => {
  test('reorder and delete renumber the entries; focus follows the moved entry', () => {
    vi.useFakeTimers();
    render(<Harness />);
    const up = screen.getByRole('button', { name: 'Mută pasul 3 în sus' });
    up.focus();
    fireEvent.click(up);
    act(() => vi.runAllTimers());
    expect([val('Pasul 1'), val('Pasul 2'), val('Pasul 3')]).toEqual(['unu', 'trei', 'doi']);
    // The moved step is now number 2; its up button holds the focus.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Mută pasul 2 în sus' }));
    fireEvent.click(screen.getByRole('button', { name: 'Mută pasul 2 în sus' }));
    act(() => vi.runAllTimers());
    // At the top the up arrow is disabled, so focus moves to the down arrow of the same step.
    expect(val('Pasul 1')).toBe('trei');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Mută pasul 1 în jos' }));
    fireEvent.click(screen.getByRole('button', { name: 'Șterge indiciul 1' }));
    expect(val('Indiciul 1')).toBe('h2');
    expect(screen.queryByLabelText('Indiciul 2')).toBeNull();
    expect(toPayload(latest).analysis_steps).toEqual([
      { step_number: 1, description: 'trei' },
      { step_number: 2, description: 'unu' },
      { step_number: 3, description: 'doi' },
    ]);
    expect(toPayload(latest).hints).toEqual([{ hint_number: 1, text: 'h2' }]);
  });

  test('articles: formatted per the case domain, empty and duplicate refused', () => {
    render(<Harness />);
    const input = screen.getByLabelText('Adaugă articol');
    fireEvent.click(screen.getByRole('button', { name: 'Adaugă' }));
    expect(screen.getByRole('alert').textContent).toBe('Introdu numărul articolului');
    fireEvent.change(input, { target: { value: '228 alin 1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adaugă' }));
    expect(screen.getByText('Art. 228 alin. (1) C.pen.')).toBeTruthy();
    fireEvent.change(input, { target: { value: '228 al. (1)' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(screen.getByRole('alert').textContent).toBe('Acest articol a fost deja adăugat');
    fireEvent.click(screen.getByRole('button', { name: 'Șterge Art. 228 alin. (1) C.pen.' }));
    expect(latest.articles).toEqual([]);
  });
});

describe('model answer', () => {
  test('shown and editable; the save payload carries it only when it was loaded', () => {
    const initial: Draft = { ...start(), model_answer: 'Premisa majoră: art. 228 C.pen.' };
    function WithAnswer() {
      const [d, setD] = useState(initial);
      return (
        <CaseEditor
          draft={d}
          onChange={(next) => {
            latest = next;
            setD(next);
          }}
        />
      );
    }
    render(<WithAnswer />);
    const area = screen.getByLabelText('Soluția model') as HTMLTextAreaElement;
    expect(area.value).toBe('Premisa majoră: art. 228 C.pen.');
    fireEvent.change(area, { target: { value: '  Concluzie: fapta este furt calificat.  ' } });
    expect(toPayload(latest).model_answer).toBe('Concluzie: fapta este furt calificat.');
    // Not loaded (null): no field, and the payload leaves the stored answer alone.
    expect('model_answer' in toPayload({ ...start(), model_answer: null })).toBe(false);
    cleanup();
    render(<Harness />);
    expect(screen.queryByLabelText('Soluția model')).toBeNull();
  });
});
