import { supabase } from '../../../lib/supabase';
import type { Database, Json } from '../../../types/database';
import type { GenDomain, toPayload } from '../../../lib/caseDraft';

type Tables = Database['public']['Tables'];
export type CategoryRow = Pick<Tables['law_categories']['Row'], 'id' | 'name'> & {
  law_subcategories: Pick<Tables['law_subcategories']['Row'], 'name' | 'position'>[];
};

// The domain's catalogue, read through the data API.
export async function fetchCategories(domain: GenDomain): Promise<CategoryRow[]> {
  const { data, error } = await supabase()
    .from('law_categories')
    .select('id, name, position, law_subcategories(name, position)')
    .eq('domain', domain)
    .order('position')
    .order('position', { referencedTable: 'law_subcategories' });
  if (error) console.error('catalogue load failed', error);
  return (data ?? []) as unknown as CategoryRow[];
}

// Saves a generated case (save_generated_case); the new case's id, or the server's error.
export async function saveGeneratedCase(payload: ReturnType<typeof toPayload>): Promise<{ id: string | null; error: { message: string; code?: string } | null }> {
  const { data, error } = await supabase().rpc('save_generated_case', { p_case: payload as unknown as Json });
  return { id: (data as string | null) ?? null, error };
}
