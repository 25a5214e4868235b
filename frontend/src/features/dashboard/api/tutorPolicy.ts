import { supabase } from '../../../lib/supabase';

// Whether the tutor may be used on this case: a seminar assignment may forbid it (issue 30).
// Its own module, so the dashboard's first chunk carries this one call and not the rest of
// the assignment's reads (api/assignment, loaded with the solution panel).
export async function tutorAllowed(caseId: string): Promise<boolean> {
  const { data, error } = await supabase().rpc('seminar_tutor_allowed', { p_case_id: caseId });
  return error ? true : data !== false;
}
