import { describe, expect, test } from 'vitest';
import {
  addArticle,
  articleNumbers,
  caseCode,
  codeForWeek,
  codeWeekMessage,
  CASE_CODE_RE,
  codeOfReference,
  difficultyOf,
  formatReference,
  generationRequest,
  joinMessages,
  levelLabel,
  moveItem,
  MSG_PARSE,
  newItem,
  normalizeArticle,
  parseClassification,
  parseGenerated,
  draftFromGenerated,
  removeItem,
  renumber,
  saveErrorMessage,
  toPayload,
  validateDraft,
  type Draft,
} from './caseDraft';

describe('article entry', () => {
  test.each([
    ['1357', '1357'],
    ['  art. 1357 ', '1357'],
    ['Art.1357', '1357'],
    ['1357 alin. (1)', '1357 alin. (1)'],
    ['1357 al. 2', '1357 alin. (2)'],
    ['1357 alin 3', '1357 alin. (3)'],
    ['45-49', '45-49'],
    ['45 – 49', '45-49'],
    ['1357 lit. a', '1357 lit. a)'],
    ['1357 alin. (1) lit. B)', '1357 alin. (1) lit. b)'],
    ['2029 ^ 1', '2029^1'],
    ['Codul muncii  art 5', 'Codul muncii art 5'],
  ])('normalizes %j to %j', (input, want) => {
    expect(normalizeArticle(input)).toBe(want);
  });

  test('formats references per domain', () => {
    expect(formatReference('1357', 'civil')).toBe('Art. 1357 C.civ.');
    expect(formatReference('228 alin. (1)', 'penal')).toBe('Art. 228 alin. (1) C.pen.');
    expect(formatReference('45-49', 'constitutional')).toBe('Art. 45-49 Const.');
  });

  test('empty, missing domain and duplicate messages', () => {
    expect(addArticle([], '   ', 'civil')).toEqual({ error: 'Introdu numărul articolului' });
    expect(addArticle([], '12', null)).toEqual({ error: 'Domeniul nu este selectat' });
    for (const bad of ['abc', 'Art. abc', 'Codul muncii art 5', '12a3', '-5']) {
      expect(addArticle([], bad, 'civil')).toEqual({ error: 'Scrie numărul articolului, de exemplu 1357, 1357 alin. (1), 45-49 sau 1357 lit. a)' });
    }
    const first = addArticle([], '1357', 'civil');
    if (!('articles' in first)) throw new Error('not added');
    expect(first.articles).toEqual([{ number: '1357', reference: 'Art. 1357 C.civ.', domain: 'civil' }]);
    expect(addArticle(first.articles, 'art. 1357', 'civil')).toEqual({ error: 'Acest articol a fost deja adăugat' });
    const second = addArticle(first.articles, '1357 al. 1', 'civil');
    expect('articles' in second && second.articles.map((a) => a.reference)).toEqual(['Art. 1357 C.civ.', 'Art. 1357 alin. (1) C.civ.']);
  });

  test('references resolve to code and article numbers', () => {
    expect(codeOfReference('Art. 1357 C.civ.')).toBe('civil');
    expect(codeOfReference('Art. 228 C.pen.')).toBe('penal');
    expect(codeOfReference('Art. 16 Const.')).toBe('constitutional');
    expect(codeOfReference('Art. 5 Codul muncii')).toBeNull();
    expect(articleNumbers('Art. 1357 alin. (1) lit. a) C.civ.')).toEqual(['1357']);
    expect(articleNumbers('Art. 45-49 C.civ.')).toEqual(['45', '46', '47', '48', '49']);
    expect(articleNumbers('Art. 1-100 C.civ.')).toEqual(['1', '100']);
    expect(articleNumbers('Art. 2029^1 C.civ.')).toEqual(['2029^1']);
    expect(articleNumbers('fără număr')).toEqual([]);
  });
});

describe('case code', () => {
  test('domain code + week + three upper-case letters', () => {
    const seq = [0, 0.5, 0.9999];
    let i = 0;
    expect(caseCode('civil', 3, () => seq[i++])).toBe('CIV3ANZ');
    expect(caseCode('penal', 12, () => 0.1)).toBe('PEN12CCC');
    for (let n = 0; n < 200; n++) {
      const c = caseCode('constitutional', 1 + (n % 12));
      expect(c).toMatch(CASE_CODE_RE);
    }
  });
  test('levels', () => {
    expect(levelLabel('usor')).toBe('Ușor');
    expect(levelLabel('dificil')).toBe('Dificil');
    expect(difficultyOf('Ușor')).toBe('usor');
    expect(difficultyOf('DIFICIL')).toBe('dificil');
    expect(difficultyOf('altceva')).toBe('mediu');
  });
});

describe('AI reply', () => {
  const body = { title: 'T', legal_problem: 'P', case_description: 'D', question: 'Q?', analysis_steps: [{ step_number: 2, description: 'Doi' }, 'Unu', { step_number: 3, description: ' ' }], hints: [{ hint_number: 1, text: 'H' }] };
  test('plain, fenced and wrapped JSON', () => {
    for (const text of [JSON.stringify(body), '```json\n' + JSON.stringify(body) + '\n```', 'Iată cazul:\n' + JSON.stringify(body) + '\nSucces!']) {
      const g = parseGenerated(text);
      expect(g.title).toBe('T');
      expect(g.analysis_steps).toEqual([{ step_number: 1, description: 'Doi' }, { step_number: 2, description: 'Unu' }]);
      expect(g.hints).toEqual([{ hint_number: 1, text: 'H' }]);
    }
  });
  test('bad JSON and missing required fields fail with the parse message', () => {
    expect(() => parseGenerated('nu este JSON')).toThrow(MSG_PARSE);
    expect(() => parseGenerated('{"title": "T", "case_description": "D"')).toThrow(MSG_PARSE);
    expect(() => parseGenerated(JSON.stringify({ ...body, question: '' }))).toThrow(MSG_PARSE);
    expect(() => parseGenerated('[1,2]')).toThrow(MSG_PARSE);
  });
  test('classification', () => {
    expect(parseClassification('```\n{"category": "Contracte", "subcategory": "Vânzarea"}\n```')).toEqual({ category: 'Contracte', subcategory: 'Vânzarea' });
    expect(parseClassification('nimic')).toBeNull();
    expect(parseClassification('{"category": "", "subcategory": ""}')).toBeNull();
  });
  test('the generation request carries the choices', () => {
    const r = JSON.parse(generationRequest({ domain: 'penal', categories: ['Furtul'], articles: [{ number: '228', reference: 'Art. 228 C.pen.', domain: 'penal' }], topic: ' furt ', focus: '', difficulty: 'dificil', week: 4, subcategory: 'Furt calificat' }));
    expect(r).toEqual({ domeniu: 'Drept Penal', categorii: ['Furtul'], articole: ['Art. 228 C.pen.'], context: { descriere_tema: 'furt', focus_specific: '' }, dificultate: 'dificil', saptamana: 4, subcategorie: 'Furt calificat' });
  });
});

describe('steps and hints', () => {
  test('move, remove and renumber', () => {
    const list = [newItem('a'), newItem('b'), newItem('c')];
    expect(moveItem(list, 2, -1).map((x) => x.text)).toEqual(['a', 'c', 'b']);
    expect(moveItem(list, 0, 1).map((x) => x.text)).toEqual(['b', 'a', 'c']);
    expect(moveItem(list, 0, -1)).toBe(list);
    expect(moveItem(list, 2, 1)).toBe(list);
    expect(removeItem(list, 1).map((x) => x.text)).toEqual(['a', 'c']);
    expect(renumber([newItem(' x '), newItem('  '), newItem('y')])).toEqual([{ number: 1, text: 'x' }, { number: 2, text: 'y' }]);
  });
});

describe('draft validation and save', () => {
  const draft = (o: Partial<Draft> = {}): Draft => ({
    case_code: 'civ3abc', title: 'T', legal_problem: 'P', case_description: 'D', question: 'Q', category: 'Contracte', subcategory: 'Vânzarea',
    level: 'mediu', week_number: 3, domain: 'civil', articles: [], steps: [newItem('s')], hints: [newItem('h')], ...o,
  });
  test('a complete draft passes', () => {
    expect(validateDraft(draft())).toEqual([]);
  });
  test('messages in the spec order, joined with ". "', () => {
    const m = validateDraft(draft({ case_code: ' ', title: '', legal_problem: '', case_description: '', question: '', subcategory: '', steps: [newItem(' ')], hints: [] }));
    expect(joinMessages(m)).toBe(
      'Codul cazului este obligatoriu. Titlul este obligatoriu. Problema juridică este obligatorie. Descrierea cazului este obligatorie. ' +
        'Întrebarea este obligatorie. Subcategoria este obligatorie pentru cazuri civile/constituționale. ' +
        'Cel puțin un pas de analiză cu conținut este obligatoriu. Cel puțin un indiciu cu conținut este obligatoriu',
    );
  });
  test('subcategory required for civil and constitutional only; the code prefix decides without a domain', () => {
    expect(validateDraft(draft({ domain: 'penal', subcategory: '' }))).toEqual([]);
    expect(validateDraft(draft({ domain: 'constitutional', subcategory: '' }))).toEqual(['Subcategoria este obligatorie pentru cazuri civile/constituționale']);
    expect(validateDraft(draft({ domain: null, case_code: 'PEN3ABC', subcategory: '' }))).toEqual([]);
    expect(validateDraft(draft({ domain: null, case_code: 'CON3ABC', subcategory: '' }))).toHaveLength(1);
    expect(validateDraft(draft({ subcategory: 'x'.repeat(101) }))).toEqual(['Subcategoria poate avea cel mult 100 de caractere']);
  });
  test('payload: code upper-cased, level capitalised, empty steps dropped and renumbered', () => {
    const p = toPayload(draft({ level: 'usor', steps: [newItem('doi'), newItem(''), newItem('trei')], hints: [newItem(' '), newItem('h')], articles: [{ number: '1357', reference: 'Art. 1357 C.civ.', domain: 'civil' }] }));
    expect(p.case_code).toBe('CIV3ABC');
    expect(p.level).toBe('Ușor');
    expect(p.analysis_steps).toEqual([{ step_number: 1, description: 'doi' }, { step_number: 2, description: 'trei' }]);
    expect(p.hints).toEqual([{ hint_number: 1, text: 'h' }]);
    expect(p.articles).toEqual([{ article_number: '1357', article_reference: 'Art. 1357 C.civ.' }]);
  });
  test('save errors', () => {
    expect(saveErrorMessage({ code: '23505', message: 'dup' }, ' civ3abc')).toBe('Codul cazului "CIV3ABC" există deja în baza de date. Te rog alege un alt cod.');
    expect(saveErrorMessage({ code: '42501', message: 'x' }, 'X')).toBe('Trebuie să fii autentificat pentru a salva cazuri');
    expect(saveErrorMessage({ code: '23514', message: 'Titlul este obligatoriu' }, 'X')).toBe('Titlul este obligatoriu');
    expect(saveErrorMessage({ code: 'XX000', message: 'boom' }, 'X')).toBe('Eroare la salvarea cazului: boom');
    expect(saveErrorMessage(null, 'X')).toBe('Eroare necunoscută la salvarea cazului');
  });
});

describe('model answer of a generated case', () => {
  test('read from the reply (empty when absent) and carried into the draft and the payload', () => {
    const reply = JSON.stringify({ title: 'T', case_description: 'D', question: 'Q?', model_answer: ' Introducere... Concluzie: răspunde. ' });
    const g = parseGenerated(reply);
    expect(g.model_answer).toBe('Introducere... Concluzie: răspunde.');
    expect(parseGenerated(JSON.stringify({ title: 'T', case_description: 'D', question: 'Q?' })).model_answer).toBe('');
    const d = draftFromGenerated(g, { code: 'CIV1ABC', domain: 'civil', level: 'mediu', week: 1, category: '', subcategory: 'S', articles: [] });
    expect(toPayload(d).model_answer).toBe('Introducere... Concluzie: răspunde.');
  });
});

test('article numbers the code has, a range in order (walkthrough 3, bug 20)', () => {
  expect(addArticle([], '49-45', 'civil')).toEqual({ error: 'Intervalul trebuie scris de la articolul mai mic la cel mai mare, de exemplu 45-49' });
  expect(addArticle([], '45-45', 'civil')).toEqual({ error: 'Intervalul trebuie scris de la articolul mai mic la cel mai mare, de exemplu 45-49' });
  expect(addArticle([], '0', 'civil')).toEqual({ error: 'Codul civil are articolele 1-2664' });
  expect(addArticle([], '99999', 'civil')).toEqual({ error: 'Codul civil are articolele 1-2664' });
  expect(addArticle([], '447', 'penal')).toEqual({ error: 'Codul penal are articolele 1-446' });
  expect(addArticle([], '157', 'constitutional')).toEqual({ error: 'Constituția are articolele 1-156' });
  expect('articles' in addArticle([], '2664', 'civil')).toBe(true);
  expect('articles' in addArticle([], '2029^1 alin. (2)', 'civil')).toBe(true);
  expect('articles' in addArticle([], '45-49', 'civil')).toBe(true);
});

test('the code says the week (walkthrough 3, bug 21)', () => {
  expect(codeForWeek('CIV3ZZQ', 1)).toBe('CIV1ZZQ');
  expect(codeForWeek('pen12abc', 4)).toBe('PEN4ABC');
  expect(codeForWeek('LIBER', 4)).toBe('LIBER');
  expect(codeWeekMessage('CIV3ZZQ', 1)).toBe('Codul cazului trebuie să conțină săptămâna 1 (CIV1…)');
  expect(codeWeekMessage('CIV1ZZQ', 1)).toBeNull();
});
