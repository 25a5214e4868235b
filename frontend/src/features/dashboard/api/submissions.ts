import { supabase } from '../../../lib/supabase';
import { aiClient, gatewayBody, taskHeaders } from '../../../lib/ai';
import { breakdownRows, type CriterionRow } from '../../../lib/score';
import type { Database } from '../../../types/database';
import type { AiTask } from '../../../types/rules';
import type { ProcessSignals } from '../utils/signals';

// A solution's way through the server: stored as a submission, checked for AI-written
// text, graded; both steps run in the AI gateway, which writes their outcome on the row.

type SubmissionInsert = Database['public']['Tables']['case_submissions']['Insert'];
export type Graded = { id: string; text: string; score: string; value: number; feedback: string; criteria: CriterionRow[]; level: number };

export async function readGraded(id: string): Promise<Graded> {
  const { data, error } = await supabase()
    .from('case_submissions')
    .select('id, submission_text, score, score_value, feedback_text, score_breakdown, difficulty_rating')
    .eq('id', id)
    .single();
  if (error || !data?.score) throw new Error('Evaluarea nu a putut fi citită.');
  return {
    id: data.id,
    text: data.submission_text,
    score: data.score,
    value: Number(data.score_value),
    feedback: data.feedback_text ?? '',
    criteria: breakdownRows(data.score_breakdown),
    level: data.difficulty_rating,
  };
}

// Stores a new submission; returns its id.
export async function insertSubmission(row: Pick<SubmissionInsert, 'user_id' | 'case_id' | 'submission_text' | 'difficulty_rating' | 'previous_submission_id' | 'assignment_id'>): Promise<string> {
  const { data, error } = await supabase()
    .from('case_submissions')
    .insert({ ...row, status: 'submitted' })
    .select('id')
    .single();
  if (error) throw error;
  return data.id;
}

// The editor's process signals of a submission (moderators read them); a failure is logged only.
export async function saveSignals(submissionId: string, userId: string, signals: ProcessSignals): Promise<void> {
  const { error } = await supabase().from('submission_process_signals').insert({ submission_id: submissionId, user_id: userId, ...signals });
  if (error) console.error('process signals not saved', error);
}

// The stored verdict of the AI-text check.
export async function readDetection(submissionId: string): Promise<{ ai_cleared: boolean | null } | null> {
  const { data } = await supabase().from('submissions_with_details').select('ai_cleared').eq('id', submissionId).single();
  return data;
}

// Runs one gateway task on a submission ('detect' or 'grade'); throws the gateway's error.
export async function runTask(token: string, task: Extract<AiTask, 'detect' | 'grade'>, submissionId: string): Promise<void> {
  const ai = await aiClient(token);
  await ai.messages.create(
    gatewayBody([{ role: 'user', content: '-' }]),
    { headers: taskHeaders(task, { 'X-Casus-Submission': submissionId }) },
  );
}
