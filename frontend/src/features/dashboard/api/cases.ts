import { supabase } from '../../../lib/supabase';
import type { Database } from '../../../types/database';
import { byArticleNumber, codeOf, loadCase, type CaseFull } from '../../../lib/cases';

type Tables = Database['public']['Tables'];
type Case = Tables['cases']['Row'];

export type { CaseFull };
export { byArticleNumber, codeOf, loadCase };

export type CaseRow = Pick<Case, 'id' | 'case_code' | 'title' | 'level' | 'week_number' | 'verified' | 'category' | 'subcategory' | 'domain' | 'created_at'>;

export type Category = Pick<Tables['law_categories']['Row'], 'id' | 'domain' | 'name' | 'position'> & {
  law_subcategories: Pick<Tables['law_subcategories']['Row'], 'name' | 'position'>[];
};
export type Domain = Pick<Tables['law_domains']['Row'], 'code' | 'name' | 'position'>;
export type TreeData = { domains: Domain[]; categories: Category[]; cases: CaseRow[] };

export async function loadTree(): Promise<TreeData> {
  const sb = supabase();
  const [d, c, cs] = await Promise.all([
    sb.from('law_domains').select('code, name, position').order('position'),
    sb.from('law_categories').select('id, domain, name, position, law_subcategories(name, position)').order('position').order('position', { referencedTable: 'law_subcategories' }),
    sb.from('cases').select('id, case_code, title, level, week_number, verified, category, subcategory, domain, created_at').order('week_number').order('created_at'),
  ]);
  if (d.error || c.error || cs.error) throw d.error ?? c.error ?? cs.error;
  return { domains: d.data, categories: c.data as unknown as Category[], cases: cs.data };
}

// Whether this browser holds a session (read from storage, no request).
export async function hasSession(): Promise<boolean> {
  const { data } = await supabase().auth.getSession();
  return !!data.session;
}

// One row of the search_cases RPC, as the generated types declare it.
export type SearchResult = Database['public']['Functions']['search_cases']['Returns'][number];

export async function searchCases(q: string): Promise<SearchResult[]> {
  const { data, error, status } = await supabase().rpc('search_cases', { search_query: q.trim(), max_results: 10 });
  // A server fault's text ("internal error") means nothing to a student: the box says
  // "Eroare la căutare" instead (walkthrough 3, bug 14).
  if (error) throw status >= 500 ? new Error('') : error;
  return data;
}

const months = ['ianuarie', 'februarie', 'martie', 'aprilie', 'mai', 'iunie', 'iulie', 'august', 'septembrie', 'octombrie', 'noiembrie', 'decembrie'];

// "2026-11-01" → "Legislație la data de 1 noiembrie 2026" (the date of the law a case was written against).
export function lawAsOfLabel(date: string | null | undefined): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date ?? '');
  if (!m) return null;
  const month = months[Number(m[2]) - 1];
  return month ? `Legislație la data de ${Number(m[3])} ${month} ${m[1]}` : null;
}

export const levelColor = (level: string) => {
  const l = level.toLowerCase();
  if (l === 'ușor' || l === 'usor') return 'green';
  if (l === 'mediu') return 'yellow';
  if (l === 'dificil') return 'red';
  return 'grey';
};

// The student's own graded work for the empty dashboard: which cases are completed (a
// score strictly above 50) and the case of the latest submission.
export async function loadMyWork(userId: string): Promise<{ completed: Set<string>; lastCase: string | null }> {
  const { data, error } = await supabase()
    .from('case_submissions')
    .select('case_id, score_value, submitted_at')
    .eq('user_id', userId)
    .order('submitted_at', { ascending: false })
    .limit(500);
  if (error) throw error;
  const completed = new Set((data ?? []).filter((s) => Number(s.score_value) > 50).map((s) => s.case_id));
  return { completed, lastCase: data?.[0]?.case_id ?? null };
}

// The last case opened on this device, for "continuă de unde ai rămas".
export const LAST_CASE_KEY = 'casus.lastCase';
export function rememberCase(id: string) {
  try {
    localStorage.setItem(LAST_CASE_KEY, id);
  } catch {
    // storage full or disabled: nothing to remember
  }
}

// The first easy (Ușor) verified case of the curriculum (the visitor's case).
export async function firstEasyCase(): Promise<string | null> {
  const { data } = await supabase()
    .from('cases')
    .select('id')
    .eq('level', 'Ușor')
    .eq('verified', true)
    .order('week_number')
    .order('created_at')
    .limit(1)
    .maybeSingle();
  return data?.id ?? null;
}
