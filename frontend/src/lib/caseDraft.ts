// The case generator's pure rules (spec §5, §8, §9): article entry and references, the
// case code, the AI reply, the draft's validation and the renumbering of steps and hints.
// No React, no network: everything here is unit-tested.

import { LAST_ARTICLE } from '../types/rules';

export type GenDomain = 'civil' | 'penal' | 'constitutional';
export type Difficulty = 'usor' | 'mediu' | 'dificil';

// last: the code's last article number (generated from the shipped codes), so a badge never
// cites one it lacks.
export const DOMAINS: { value: GenDomain; label: string; prefix: string; suffix: string; code: string; last: number }[] = [
  { value: 'civil', label: 'Drept Civil', prefix: 'CIV', suffix: 'C.civ.', code: 'Codul civil', last: LAST_ARTICLE.civil },
  { value: 'penal', label: 'Drept Penal', prefix: 'PEN', suffix: 'C.pen.', code: 'Codul penal', last: LAST_ARTICLE.penal },
  { value: 'constitutional', label: 'Drept Constituțional', prefix: 'CON', suffix: 'Const.', code: 'Constituția', last: LAST_ARTICLE.constitutional },
];
export const domainInfo = (d: GenDomain) => DOMAINS.find((x) => x.value === d)!;

export const DIFFICULTIES: { value: Difficulty; label: string }[] = [
  { value: 'usor', label: 'Ușor' },
  { value: 'mediu', label: 'Mediu' },
  { value: 'dificil', label: 'Dificil' },
];
export const WEEKS = Array.from({ length: 12 }, (_, i) => i + 1);
export const weekLabel = (n: number) => `Săptămâna ${n}`;
export const SUBCATEGORY_MAX = 100;

// The stored level is capitalised (Ușor, Mediu, Dificil); the generator speaks usor/mediu/dificil.
export const levelLabel = (d: Difficulty) => DIFFICULTIES.find((x) => x.value === d)?.label ?? 'Mediu';
export function difficultyOf(level: string): Difficulty {
  const l = level.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  return l === 'usor' || l === 'dificil' ? l : 'mediu';
}

export type Article = { number: string; reference: string; domain: GenDomain };

export const MSG_ARTICLE_EMPTY = 'Introdu numărul articolului';
export const MSG_ARTICLE_DUPLICATE = 'Acest articol a fost deja adăugat';
export const MSG_NO_DOMAIN = 'Domeniul nu este selectat';
export const MSG_ARTICLE_NOT_NUMBER = 'Scrie numărul articolului, de exemplu 1357, 1357 alin. (1), 45-49 sau 1357 lit. a)';
export const MSG_ARTICLE_RANGE_ORDER = 'Intervalul trebuie scris de la articolul mai mic la cel mai mare, de exemplu 45-49';
export const msgArticleOutside = (d: GenDomain) => `${domainInfo(d).code} are articolele 1-${domainInfo(d).last}`;

const NUM = String.raw`\d+(?:\^\d+)?`;
// "1357", "2029^1", "45-49", each optionally followed by "alin. (1)" / "al. 1" and "lit. a)".
const ARTICLE_RE = new RegExp(
  String.raw`^(${NUM})(?:\s*[-–]\s*(${NUM}))?(?:\s*,?\s*(?:alin\.?|al\.)\s*\(?\s*(\d+)\s*\)?)?(?:\s*,?\s*lit\.?\s*\(?\s*([a-z])\s*\)?)?$`,
  'i',
);

// normalizeArticle turns what a student types into the stored article number: the forms the
// spec lists are written canonically ("1357 alin. (1) lit. a)", "45-49"); anything else is
// returned as typed, with spaces collapsed and a leading "Art." dropped (addArticle refuses it).
export function normalizeArticle(input: string): string {
  const s = input
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^art(?:icolul|\.)?\s*/i, '')
    .replace(/\s*\^\s*/g, '^');
  const m = ARTICLE_RE.exec(s);
  if (!m) return s;
  let out = m[2] ? `${m[1]}-${m[2]}` : m[1];
  if (m[3]) out += ` alin. (${m[3]})`;
  if (m[4]) out += ` lit. ${m[4].toLowerCase()})`;
  return out;
}

export const formatReference = (number: string, domain: GenDomain) => `Art. ${number} ${domainInfo(domain).suffix}`;

// isArticleNumber: one of the spec's forms (a number, with alin./al., a range, with lit.);
// "abc" would become "Art. abc C.civ.", a badge that opens nothing.
export const isArticleNumber = (number: string) => ARTICLE_RE.test(number);

// addArticle applies the entry rules: empty, not an article number, duplicate (same
// normalised number), and the domain's reference format.
export function addArticle(list: Article[], input: string, domain: GenDomain | null): { articles: Article[] } | { error: string } {
  const number = normalizeArticle(input);
  if (!number) return { error: MSG_ARTICLE_EMPTY };
  if (!isArticleNumber(number)) return { error: MSG_ARTICLE_NOT_NUMBER };
  if (!domain) return { error: MSG_NO_DOMAIN };
  // Numbers the code has, a range in order (walkthrough 3, bug 20).
  const [from, to = from] = number.split(' ')[0].split('-').map((n) => parseInt(n, 10));
  if (from < 1 || to > domainInfo(domain).last) return { error: msgArticleOutside(domain) };
  if (to <= from && number.split(' ')[0].includes('-')) return { error: MSG_ARTICLE_RANGE_ORDER };
  if (list.some((a) => a.number.toLowerCase() === number.toLowerCase())) return { error: MSG_ARTICLE_DUPLICATE };
  return { articles: [...list, { number, reference: formatReference(number, domain), domain }] };
}

// Which code a reference cites, from its suffix.
export function codeOfReference(ref: string): GenDomain | null {
  if (/C\.\s?pen\./i.test(ref)) return 'penal';
  if (/Const/i.test(ref)) return 'constitutional';
  if (/C\.\s?civ\./i.test(ref)) return 'civil';
  return null;
}

// The article numbers a reference cites, for checking against the codes: "Art. 1357 alin. (1)
// C.civ." → ["1357"]; a range "Art. 45-49" → each article (at most 20, else its two ends).
export function articleNumbers(ref: string): string[] {
  const m = /(\d+(?:\s*\^\s*\d+)?)(?:\s*[-–]\s*(\d+(?:\s*\^\s*\d+)?))?/.exec(ref.replace(/^\s*art\.?\s*/i, ''));
  if (!m) return [];
  const a = m[1].replace(/\s+/g, '');
  if (!m[2]) return [a];
  const b = m[2].replace(/\s+/g, '');
  const [ia, ib] = [parseInt(a, 10), parseInt(b, 10)];
  if (a.includes('^') || b.includes('^') || ib < ia || ib - ia > 19) return [a, b];
  return Array.from({ length: ib - ia + 1 }, (_, i) => String(ia + i));
}

// The case code: domain code + week + 3 random upper-case letters (spec §9).
export function caseCode(domain: GenDomain, week: number, random: () => number = Math.random): string {
  const letters = Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.min(25, Math.floor(random() * 26)))).join('');
  return `${domainInfo(domain).prefix}${week}${letters}`;
}
export const CASE_CODE_RE = /^(CIV|PEN|CON)([1-9]|1[0-2])[A-Z]{3}$/;

// The code and the week say the same week (walkthrough 3, bug 21): another week rewrites a
// code of the usual form; a code of another form is left as typed.
const CODE_PARTS = /^(CIV|PEN|CON)(\d+)([A-Z]{3})$/i;
export function codeForWeek(code: string, week: number): string {
  const m = CODE_PARTS.exec(code.trim());
  return m ? `${m[1].toUpperCase()}${week}${m[3].toUpperCase()}` : code;
}
export function codeWeekMessage(code: string, week: number): string | null {
  const m = CODE_PARTS.exec(code.trim());
  return m && Number(m[2]) !== week ? `Codul cazului trebuie să conțină săptămâna ${week} (${m[1].toUpperCase()}${week}…)` : null;
}

// The AI's reply.
export const MSG_PARSE = 'Eroare la parsarea răspunsului AI. Încearcă din nou.';
export const MSG_GENERATE = 'Eroare la generarea cazului. Verifică conexiunea și încearcă din nou.';
export const MSG_NOT_TEXT = 'Response nu este text';

export type GeneratedCase = {
  title: string;
  legal_problem: string;
  case_description: string;
  question: string;
  analysis_steps: { step_number: number; description: string }[];
  hints: { hint_number: number; text: string }[];
  // The grader's hidden reference, written with the syllogism method (may be absent).
  model_answer: string;
};

export class ParseError extends Error {
  constructor() {
    super(MSG_PARSE);
  }
}

// The JSON object of a reply, fenced (```json … ```) or not, or with prose around it.
function jsonObject(text: string): Record<string, unknown> | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = [fenced?.[1], text, text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)];
  for (const c of candidates) {
    if (!c || !c.trim()) continue;
    try {
      const v: unknown = JSON.parse(c.trim());
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // try the next form
    }
  }
  return null;
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

// parseGenerated reads the generation reply; it must hold title, case_description and
// question, otherwise the generation fails with the parse message.
export function parseGenerated(text: string): GeneratedCase {
  const o = jsonObject(text);
  if (!o) throw new ParseError();
  const title = str(o.title);
  const case_description = str(o.case_description);
  const question = str(o.question);
  if (!title || !case_description || !question) throw new ParseError();
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  const steps = list(o.analysis_steps)
    .map((e) => (typeof e === 'string' ? e : str((e as Record<string, unknown>)?.description ?? (e as Record<string, unknown>)?.step_description)))
    .map((s) => s.trim())
    .filter(Boolean);
  const hints = list(o.hints)
    .map((e) => (typeof e === 'string' ? e : str((e as Record<string, unknown>)?.text ?? (e as Record<string, unknown>)?.hint_text)))
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    title,
    legal_problem: str(o.legal_problem),
    case_description,
    question,
    analysis_steps: steps.map((description, i) => ({ step_number: i + 1, description })),
    hints: hints.map((text, i) => ({ hint_number: i + 1, text })),
    model_answer: str(o.model_answer),
  };
}

// The classification reply; any failure yields nothing (the spec: silently).
export function parseClassification(text: string): { category: string; subcategory: string } | null {
  const o = jsonObject(text);
  if (!o) return null;
  const category = str(o.category);
  const subcategory = str(o.subcategory);
  if (!category && !subcategory) return null;
  return { category, subcategory };
}

// Steps and hints in the editor: stable ids for React, numbers from the position.
export type Item = { id: string; text: string };
let seq = 0;
export const newItem = (text = ''): Item => ({ id: `i${++seq}`, text });

export function moveItem<T>(list: T[], index: number, delta: -1 | 1): T[] {
  const to = index + delta;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return list;
  const out = list.slice();
  [out[index], out[to]] = [out[to], out[index]];
  return out;
}
export const removeItem = <T,>(list: T[], index: number): T[] => list.filter((_, i) => i !== index);

// renumber drops empty entries and numbers the rest 1..n in their order.
export function renumber(list: Item[]): { number: number; text: string }[] {
  return list
    .map((x) => x.text.trim())
    .filter(Boolean)
    .map((text, i) => ({ number: i + 1, text }));
}

export type Draft = {
  case_code: string;
  title: string;
  legal_problem: string;
  case_description: string;
  question: string;
  category: string;
  subcategory: string;
  level: Difficulty;
  week_number: number;
  domain: GenDomain | null;
  articles: Article[];
  steps: Item[];
  hints: Item[];
  // The model answer; null (or absent) when it could not be read, so saving leaves it alone.
  model_answer?: string | null;
};

export function draftFromGenerated(g: GeneratedCase, o: { code: string; domain: GenDomain | null; level: Difficulty; week: number; category: string; subcategory: string; articles: Article[] }): Draft {
  return {
    case_code: o.code,
    title: g.title,
    legal_problem: g.legal_problem,
    case_description: g.case_description,
    question: g.question,
    category: o.category,
    subcategory: o.subcategory,
    level: o.level,
    week_number: o.week,
    domain: o.domain,
    articles: o.articles,
    steps: g.analysis_steps.map((s) => newItem(s.description)),
    hints: g.hints.map((h) => newItem(h.text)),
    model_answer: g.model_answer,
  };
}

// The domain a draft belongs to: the chosen one, else the code's prefix.
export function draftDomain(d: Draft): GenDomain | null {
  if (d.domain) return d.domain;
  const p = d.case_code.trim().toUpperCase().slice(0, 3);
  return DOMAINS.find((x) => x.prefix === p)?.value ?? null;
}

// validateDraft returns the spec's save messages in its order (§5); the UI joins them with '. '.
export function validateDraft(d: Draft): string[] {
  const out: string[] = [];
  if (!d.case_code.trim()) out.push('Codul cazului este obligatoriu');
  const weekProblem = codeWeekMessage(d.case_code, d.week_number);
  if (weekProblem) out.push(weekProblem);
  if (!d.title.trim()) out.push('Titlul este obligatoriu');
  if (!d.legal_problem.trim()) out.push('Problema juridică este obligatorie');
  if (!d.case_description.trim()) out.push('Descrierea cazului este obligatorie');
  if (!d.question.trim()) out.push('Întrebarea este obligatorie');
  const dom = draftDomain(d);
  if ((dom === 'civil' || dom === 'constitutional') && !d.subcategory.trim()) out.push('Subcategoria este obligatorie pentru cazuri civile/constituționale');
  if (d.subcategory.trim().length > SUBCATEGORY_MAX) out.push('Subcategoria poate avea cel mult 100 de caractere');
  if (renumber(d.steps).length === 0) out.push('Cel puțin un pas de analiză cu conținut este obligatoriu');
  if (renumber(d.hints).length === 0) out.push('Cel puțin un indiciu cu conținut este obligatoriu');
  return out;
}
export const joinMessages = (m: string[]) => m.join('. ');

// The save RPC's payload (save_generated_case / review_update_case).
export function toPayload(d: Draft) {
  return {
    case_code: d.case_code.trim().toUpperCase(),
    title: d.title.trim(),
    level: levelLabel(d.level),
    week_number: d.week_number,
    legal_problem: d.legal_problem.trim(),
    case_description: d.case_description.trim(),
    question: d.question.trim(),
    category: d.category.trim(),
    subcategory: d.subcategory.trim(),
    domain: draftDomain(d) ?? undefined,
    articles: d.articles.map((a) => ({ article_number: a.number, article_reference: a.reference })),
    analysis_steps: renumber(d.steps).map((s) => ({ step_number: s.number, description: s.text })),
    hints: renumber(d.hints).map((h) => ({ hint_number: h.number, text: h.text })),
    ...(d.model_answer != null ? { model_answer: d.model_answer.trim() } : {}),
  };
}

export const MSG_NOT_AUTHENTICATED = 'Trebuie să fii autentificat pentru a salva cazuri';

// The message for a failed save (spec §8).
export function saveErrorMessage(err: { code?: string; message?: string } | null | undefined, code: string): string {
  if (!err) return 'Eroare necunoscută la salvarea cazului';
  if (err.code === '23505') return `Codul cazului "${code.trim().toUpperCase()}" există deja în baza de date. Te rog alege un alt cod.`;
  if (err.code === '42501') return MSG_NOT_AUTHENTICATED;
  if (err.code === '23514' && err.message) return err.message;
  if (err.message) return `Eroare la salvarea cazului: ${err.message}`;
  return 'Eroare necunoscută la salvarea cazului';
}

// What the wizard's five steps collect.
export type GenerationChoices = {
  domain: GenDomain | null;
  categories: string[];
  articles: Article[];
  topic: string;
  focus: string;
  difficulty: Difficulty;
  week: number;
  subcategory: string;
};

// The generator's choices as the user message of the generation call (the server owns the prompt).
export function generationRequest(c: GenerationChoices): string {
  return JSON.stringify({
    domeniu: c.domain ? domainInfo(c.domain).label : null,
    categorii: c.categories,
    articole: c.articles.map((a) => a.reference),
    context: { descriere_tema: c.topic.trim(), focus_specific: c.focus.trim() },
    dificultate: c.difficulty,
    saptamana: c.week,
    subcategorie: c.subcategory.trim(),
  });
}
