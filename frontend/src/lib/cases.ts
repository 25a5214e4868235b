import { supabase } from './supabase';
import type { Database } from '../types/database';

// A case with its articles, steps and hints: read by the study screen and by the review
// queue's editor.

type Tables = Database['public']['Tables'];
type Case = Tables['cases']['Row'];

export type CaseFull = Case & {
  articles: Pick<Tables['case_articles']['Row'], 'article_number' | 'article_reference'>[];
  steps: Pick<Tables['case_analysis_steps']['Row'], 'step_number' | 'step_description'>[];
  hints: Pick<Tables['case_hints']['Row'], 'hint_number' | 'hint_text'>[];
};

// A complete case load: the case, its articles, steps and hints, in parallel.
export async function loadCase(id: string): Promise<CaseFull | null> {
  const sb = supabase();
  const [c, a, s, h] = await Promise.all([
    sb.from('cases').select('*').eq('id', id).maybeSingle(),
    sb.from('case_articles').select('article_number, article_reference').eq('case_id', id).order('article_number'),
    sb.from('case_analysis_steps').select('step_number, step_description').eq('case_id', id).order('step_number'),
    sb.from('case_hints').select('hint_number, hint_text').eq('case_id', id).order('hint_number'),
  ]);
  if (c.error || !c.data) {
    if (c.error) console.error('case load failed', c.error);
    return null;
  }
  return { ...c.data, articles: byArticleNumber(a.data ?? []), steps: s.data ?? [], hints: h.data ?? [] };
}

// Article badges in reading order: by code (as first cited), then by number, so "Art. 21"
// comes before "Art. 146" and "Art. 112" before "Art. 112^1" (the column sorts as text).
export function byArticleNumber<T extends { article_number: string; article_reference: string }>(list: T[]): T[] {
  const codes: string[] = [];
  for (const a of list) if (!codes.includes(codeOf(a.article_reference))) codes.push(codeOf(a.article_reference));
  const key = (a: T) => {
    const m = /^(\d+)(?:\^(\d+))?/.exec(a.article_number.trim());
    return [codes.indexOf(codeOf(a.article_reference)), m ? Number(m[1]) : Infinity, m?.[2] ? Number(m[2]) : 0];
  };
  return [...list].sort((x, y) => {
    const [a, b] = [key(x), key(y)];
    return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  });
}

// search_cases returns these columns of cases (typed in the generated types as plain records).
// Which code tab an article reference belongs to.
export function codeOf(ref: string): 'codul_civil' | 'constitutia' | 'codul_penal' {
  if (/C\.\s?pen\./i.test(ref)) return 'codul_penal';
  if (/Const/i.test(ref)) return 'constitutia';
  return 'codul_civil';
}
