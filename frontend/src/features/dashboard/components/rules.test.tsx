import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { Category, CaseRow } from '../api/cases';
import { casesIn, pathTo, subcategoriesOf, toggleCategory, toggleDomain, toggleSub } from '../utils/tree';
import { breakdownRows, overallVerdict, parseTotal, RUBRIC, scoreLabel, scoreSeries } from '../../../lib/score';
import { articleNumber, splitArticles } from '../../../components/code-viewer/CodeViewer';

const searchCases = vi.fn();
vi.mock('../api/cases', async (orig) => ({ ...(await orig<typeof import('../api/cases')>()), searchCases: (q: string) => searchCases(q) }));
const { SearchBox } = await import('./SearchBox');

describe('sidebar accordion', () => {
  test('opening a domain closes the others; clicking the open one closes it', () => {
    expect(toggleDomain({}, 'civil')).toEqual({ domain: 'civil' });
    expect(toggleDomain({ domain: 'civil', category: 'c1', sub: 's' }, 'penal')).toEqual({ domain: 'penal' });
    expect(toggleDomain({ domain: 'civil', category: 'c1' }, 'civil')).toEqual({});
  });
  test('categories and subcategories behave the same one level down', () => {
    expect(toggleCategory({ domain: 'civil' }, 'civil', 'c1')).toEqual({ domain: 'civil', category: 'c1' });
    expect(toggleCategory({ domain: 'civil', category: 'c1', sub: 's' }, 'civil', 'c2')).toEqual({ domain: 'civil', category: 'c2' });
    expect(toggleCategory({ domain: 'civil', category: 'c1', sub: 's' }, 'civil', 'c1')).toEqual({ domain: 'civil' });
    expect(toggleSub({ domain: 'civil', category: 'c1' }, 'civil', 'c1', 's1')).toEqual({ domain: 'civil', category: 'c1', sub: 's1' });
    expect(toggleSub({ domain: 'civil', category: 'c1', sub: 's1' }, 'civil', 'c1', 's1')).toEqual({ domain: 'civil', category: 'c1' });
    expect(toggleSub({ domain: 'civil', category: 'c1', sub: 's1' }, 'civil', 'c1', 's2')).toEqual({ domain: 'civil', category: 'c1', sub: 's2' });
  });
  const cats: Category[] = [
    { id: 'k1', domain: 'civil', name: 'Posesia', position: 1, law_subcategories: [{ name: 'Uzucapiunea', position: 1 }, { name: 'Fructele', position: 2 }] },
    { id: 'k2', domain: 'penal', name: 'Altele', position: 2, law_subcategories: [] },
  ];
  const row = (id: string, domain: string, category: string | null, subcategory: string | null) =>
    ({ id, domain, category, subcategory, case_code: id, title: 'Caz 1: T', level: 'Mediu', week_number: 1, verified: true, created_at: '' }) as CaseRow;
  test('a search pick opens its domain, category and subcategory', () => {
    expect(pathTo(row('a', 'civil', 'Posesia', 'Fructele'), cats)).toEqual({ domain: 'civil', category: 'k1', sub: 'Fructele' });
    expect(pathTo(row('b', 'penal', 'Altele', null), cats)).toEqual({ domain: 'penal', category: 'k2', sub: 'Altele' });
    expect(pathTo(row('c', 'roman', null, null), cats)).toEqual({ domain: 'roman' });
  });
  test('cases are listed under their subcategory; a category without subcategories lists all its cases', () => {
    const cases = [row('a', 'civil', 'Posesia', 'Fructele'), row('b', 'civil', 'Posesia', 'Uzucapiunea'), row('c', 'penal', 'Altele', null), row('d', 'civil', 'Altele', null)];
    expect(casesIn(cases, 'civil', cats[0], 'Fructele').map((c) => c.id)).toEqual(['a']);
    expect(subcategoriesOf(cats[1]).map((s) => s.name)).toEqual(['Altele']);
    expect(casesIn(cases, 'penal', cats[1], 'Altele').map((c) => c.id)).toEqual(['c']);
  });
  test('a free-text subcategory of a generated case is listed after the catalogue\'s', () => {
    const cases = [row('a', 'civil', 'Posesia', 'Fructele'), row('g', 'civil', 'Posesia', 'Altă subcategorie'), row('p', 'penal', 'Posesia', 'Alta')];
    const subs = subcategoriesOf(cats[0], cases).map((s) => s.name);
    expect(subs.slice(-1)).toEqual(['Altă subcategorie']);
    expect(subs.filter((s) => s === 'Fructele')).toHaveLength(1);
    expect(casesIn(cases, 'civil', cats[0], 'Altă subcategorie').map((c) => c.id)).toEqual(['g']);
  });
});

describe('overall verdict', () => {
  test('from the Calificativ line to the end, markdown marks dropped', () => {
    expect(overallVerdict('I. OPERAȚIUNI\n1.1 X: 4/5\nPUNCTAJ TOTAL: 78/100\n**Calificativ:** Bine\n- Puncte forte / De îmbunătățit: premisa minoră.')).toBe('Calificativ: Bine\nPuncte forte / De îmbunătățit: premisa minoră.');
    expect(overallVerdict('1.1 X: 4/5')).toBeNull();
    expect(overallVerdict(null)).toBeNull();
  });
});

describe('scores', () => {
  test('breakdown rows follow the rubric and drop out-of-range values', () => {
    const rows = breakdownRows({ criteria: { '1.1': { score: 5, max: 5 }, '2.2.1': { score: 17, max: 20 }, '1.2': { score: 9, max: 8 }, '2.1': { score: 3, max: 12 } } });
    expect(rows.map((r) => r.code)).toEqual(RUBRIC.map((r) => r.code));
    expect(rows.find((r) => r.code === '1.1')!.score).toBe(5);
    expect(rows.find((r) => r.code === '2.2.1')).toEqual({ code: '2.2.1', label: 'Premisa majoră', score: 17, max: 20 });
    expect(rows.find((r) => r.code === '1.2')!.score).toBeNull();
    expect(rows.find((r) => r.code === '2.1')!.score).toBeNull();
    expect(breakdownRows(null).every((r) => r.score === null)).toBe(true);
    expect(RUBRIC.reduce((a, r) => a + r.max, 0)).toBe(100);
  });
  test('score label with band, or "În curs"', () => {
    expect(scoreLabel('78/100', 78)).toBe('78/100 · Bine');
    expect(scoreLabel('90/100', 90)).toBe('90/100 · Excelent');
    expect(scoreLabel('59/100', 59)).toBe('59/100 · Nesatisfăcător');
    expect(scoreLabel(null, null)).toBe('În curs');
  });
  test('the total parses only from one "PUNCTAJ TOTAL: N/100"', () => {
    expect(parseTotal('...\nPUNCTAJ TOTAL: 78/100\nCalificativ: Bine')).toBe(78);
    expect(parseTotal('PUNCTAJ TOTAL:  9 / 100')).toBe(9);
    expect(parseTotal('Punctaj: 78/100')).toBeNull();
    expect(parseTotal('PUNCTAJ TOTAL: 178/100')).toBeNull();
    expect(parseTotal('PUNCTAJ TOTAL: 10/100 ... PUNCTAJ TOTAL: 90/100')).toBeNull();
  });
  test('the chart series keeps graded submissions, oldest first', () => {
    const s = scoreSeries([
      { submitted_at: '2026-03-02T10:00:00Z', score_value: 80, case_code: 'B' },
      { submitted_at: '2026-03-01T10:00:00Z', score_value: 40, case_code: 'A' },
      { submitted_at: '2026-03-03T10:00:00Z', score_value: null, case_code: 'C' },
    ]);
    expect(s.map((p) => [p.label, p.value])).toEqual([['A', 40], ['B', 80]]);
  });
});

describe('code viewer text', () => {
  test('articles split on their headers; references resolve to article numbers', () => {
    const a = splitArticles('CODUL\n\nArt. 1\nIzvoare\n(1) Text.\nArt. 2^1\nAlt text\nArticolul 3\nX');
    expect(a.map((x) => x.number)).toEqual(['', '1', '2^1', '3']);
    expect(a[1].text).toBe('Art. 1\nIzvoare\n(1) Text.');
    expect(a.map((x) => x.text)).toEqual(['CODUL\n', 'Art. 1\nIzvoare\n(1) Text.', 'Art. 2^1\nAlt text', 'Articolul 3\nX']);
    expect(a[1].lines).toEqual(['Art. 1', 'Izvoare', '(1) Text.']);
    expect(a[2].lower).toBe('art. 2^1\nalt text');
    // A header at the very start leaves no empty preamble; a header-like line inside a
    // paragraph is not one.
    expect(splitArticles('Art. 5\nVezi Art. 6 din lege.\nArt. 6\nY').map((x) => x.number)).toEqual(['5', '6']);
    expect(articleNumber('Art. 1357 C.civ.')).toBe('1357');
    expect(articleNumber('art. 2^1')).toBe('2^1');
    expect(articleNumber(' 630 ')).toBe('630');
  });
});

describe('search box', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    searchCases.mockReset();
    searchCases.mockResolvedValue([
      { id: '1', case_code: 'CIV1', title: 'Tăgada paternității', level: 'Mediu', verified: true, category: 'Filiația', subcategory: 'Acțiuni', domain: 'civil' },
      { id: '2', case_code: 'CIV2', title: 'Bicicleta', level: 'Ușor', verified: false, category: null, subcategory: null, domain: 'civil' },
    ]);
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  test('searches from 2 characters, 300 ms after the last keystroke, once', async () => {
    const onPick = vi.fn();
    render(<SearchBox onPick={onPick} />);
    const box = screen.getByLabelText('Caută cazuri după cod sau titlu');
    fireEvent.change(box, { target: { value: 't' } });
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(searchCases).not.toHaveBeenCalled();
    fireEvent.change(box, { target: { value: ' t ' } });
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(searchCases).not.toHaveBeenCalled();
    fireEvent.change(box, { target: { value: 'ta' } });
    await act(() => vi.advanceTimersByTimeAsync(200));
    fireEvent.change(box, { target: { value: 'tag' } });
    await act(() => vi.advanceTimersByTimeAsync(299));
    expect(searchCases).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(searchCases).toHaveBeenCalledTimes(1);
    expect(searchCases).toHaveBeenCalledWith('tag');
    expect(screen.getAllByRole('option')).toHaveLength(2);
    expect(screen.getAllByRole('option')[0].querySelector('mark')!.textContent).toBe('Tăg');
    // Arrows move, Enter picks, Escape closes.
    fireEvent.keyDown(box, { key: 'ArrowDown' });
    fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(screen.getAllByRole('option')[1].getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(box, { key: 'ArrowUp' });
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(onPick).toHaveBeenCalledWith(expect.objectContaining({ id: '1' }));
    expect(screen.queryAllByRole('option')).toHaveLength(0);
  });

  test('no results: the spec message; a failure shows its message', async () => {
    render(<SearchBox onPick={() => {}} />);
    const box = screen.getByLabelText('Caută cazuri după cod sau titlu');
    searchCases.mockResolvedValueOnce([]);
    fireEvent.change(box, { target: { value: 'zzz ' } });
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(screen.getByText('Nu s-au găsit cazuri pentru "zzz"')).toBeTruthy();
    searchCases.mockRejectedValueOnce(new Error(''));
    fireEvent.change(box, { target: { value: 'yyy' } });
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(screen.getByText('Eroare la căutare')).toBeTruthy();
  });

  test('stale results are not shown or picked while a newer query is pending', async () => {
    const onPick = vi.fn();
    render(<SearchBox onPick={onPick} />);
    const box = screen.getByLabelText('Caută cazuri după cod sau titlu');
    fireEvent.change(box, { target: { value: 'tag' } });
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(screen.getAllByRole('option')).toHaveLength(2);
    fireEvent.change(box, { target: { value: 'bic' } });
    expect(screen.queryAllByRole('option')).toHaveLength(0);
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(onPick).not.toHaveBeenCalled();
  });
});
