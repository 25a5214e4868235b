import { supabase } from '../../../lib/supabase';
import type { Database, Json } from '../../../types/database';
import { loadCase } from '../../../lib/cases';
import { articleNumbers, codeOfReference, difficultyOf, newItem, toPayload, type Draft, type GenDomain } from '../../../lib/caseDraft';

// One row of the review_queue RPC, as the generated types declare it.
export type QueueRow = Database['public']['Functions']['review_queue']['Returns'][number];

// The unverified, unrejected cases, newest first (moderators and admins only: the RPC refuses others).
export async function loadQueue(): Promise<QueueRow[]> {
  const { data, error } = await supabase().rpc('review_queue');
  if (error) throw error;
  return data ?? [];
}

// The case's model answer (the grader's hidden reference), through grade-server's
// case_model_answer RPC (authors of unverified cases and moderators only). null when it
// cannot be read, so a save then leaves the stored answer alone.
async function loadModelAnswer(id: string): Promise<string | null> {
  const rpc = supabase().rpc as unknown as (fn: string, args: object) => PromiseLike<{ data: unknown; error: unknown }>;
  const { data, error } = await rpc.call(supabase(), 'case_model_answer', { p_case_id: id });
  if (error) return null;
  return typeof data === 'string' ? data : '';
}

// A case with its children, as an editor draft.
export async function loadDraft(id: string): Promise<Draft | null> {
  const [row, modelAnswer] = await Promise.all([loadCase(id), loadModelAnswer(id)]);
  if (!row) return null;
  const domain = (['civil', 'penal', 'constitutional'].includes(row.domain) ? row.domain : null) as GenDomain | null;
  return {
    case_code: row.case_code,
    title: row.title,
    legal_problem: row.legal_problem,
    case_description: row.case_description,
    question: row.question,
    category: row.category ?? '',
    subcategory: row.subcategory ?? '',
    level: difficultyOf(row.level),
    week_number: row.week_number,
    domain,
    articles: row.articles.map((x) => ({
      number: x.article_number,
      reference: x.article_reference,
      domain: codeOfReference(x.article_reference) ?? domain ?? 'civil',
    })),
    steps: row.steps.map((x) => newItem(x.step_description)),
    hints: row.hints.map((x) => newItem(x.hint_text)),
    model_answer: modelAnswer,
  };
}

export async function updateCase(id: string, d: Draft) {
  const { error } = await supabase().rpc('review_update_case', { p_case_id: id, p_case: toPayload(d) as unknown as Json });
  if (error) throw error;
}

export async function verifyCase(id: string) {
  const { error } = await supabase().rpc('review_verify_case', { p_case_id: id });
  if (error) throw error;
}

export async function rejectCase(id: string, reason: string) {
  const { error } = await supabase().rpc('review_reject_case', { p_case_id: id, p_reason: reason });
  if (error) throw error;
}

export type ArticleCheck = { number: string; found: boolean; title: string | null; body: string };

// Each article a reference cites, looked up in the codes (code_articles through the RPC).
// A reference that names no known code, or numbers the code lacks, comes back not found.
export async function checkReference(reference: string, fallback: GenDomain | null): Promise<ArticleCheck[]> {
  const code = codeOfReference(reference) ?? fallback;
  const numbers = articleNumbers(reference);
  if (!code || numbers.length === 0) return [{ number: reference, found: false, title: null, body: '' }];
  return Promise.all(
    numbers.map(async (n) => {
      const { data, error } = await supabase().rpc('get_code_article', { p_code: code, p_number: n });
      const row = !error && Array.isArray(data) ? data[0] : undefined;
      return row ? { number: n, found: true, title: row.title, body: row.body } : { number: n, found: false, title: null, body: '' };
    }),
  );
}

// The appeals of blocked AI checks (issue 15 §3): the queue and the two decisions. The
// RPCs refuse anyone but moderators and admins.
export type AppealRow = {
  id: string;
  submission_id: string;
  requested_at: string;
  case_code: string;
  case_title: string;
  student_username: string | null;
  submission_text: string;
  difficulty_rating: number;
  ai_justification: string | null;
  chars_typed: number | null;
  chars_pasted: number | null;
  paste_events: number | null;
  largest_paste: number | null;
  ms_to_submit: number | null;
};

export async function loadAppeals(): Promise<AppealRow[]> {
  const { data, error } = await supabase().rpc('appeal_queue');
  if (error) throw error;
  return (data ?? []) as AppealRow[];
}

export async function releaseAppeal(id: string) {
  const { error } = await supabase().rpc('appeal_release', { p_appeal_id: id });
  if (error) throw error;
}

export async function confirmBlock(id: string, reason: string) {
  const { error } = await supabase().rpc('appeal_confirm_block', { p_appeal_id: id, p_reason: reason });
  if (error) throw error;
}

// Moderator flags (issue 33): submissions the grader graded but flagged for a human, with
// the quoted evidence. Written by the server only; the RPCs refuse anyone but moderators
// and admins.
export type FlagReason = 'authorship_uncertain' | 'score_lines_removed' | 'high_score_short_text' | 'addresses_grader';
export type Flag = { id: string; reason: FlagReason; evidence: string[]; detail: string | null; created_at: string };
export type FlaggedRow = Omit<Database['public']['Functions']['flag_queue']['Returns'][number], 'flags' | 'score_value' | 'student_username'> & {
  score_value: number | null;
  student_username: string | null;
  flags: Flag[];
};

export async function loadFlagged(): Promise<FlaggedRow[]> {
  const { data, error } = await supabase().rpc('flag_queue');
  if (error) throw error;
  return (data ?? []).map((r) => ({ ...r, flags: (Array.isArray(r.flags) ? r.flags : []) as unknown as Flag[] }));
}

// Resolves the flags the moderator saw (a flag raised meanwhile stays open).
export async function resolveFlags(ids: string[]) {
  const { error } = await supabase().rpc('resolve_submission_flags', { p_flag_ids: ids });
  if (error) throw error;
}
