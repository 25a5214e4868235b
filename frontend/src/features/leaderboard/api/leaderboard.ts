import { supabase } from '../../../lib/supabase';
import type { Database } from '../../../types/database';

// The leaderboard's only door to the server: the RPCs of sql/app 016. They return rank,
// username, university code, points and whether the row is the caller — nothing else.

type Functions = Database['public']['Functions'];
export type TopArgs = Functions['leaderboard_top']['Args'];
export type AroundArgs = Functions['leaderboard_around_me']['Args'];
// The values the RPCs accept for p_period and p_scope.
export type Period = 'week' | 'all';
export type Scope = 'global' | 'university';

export type BoardRow = {
  rank: number;
  username: string;
  university_code: string | null;
  points: number;
  is_self: boolean;
};

// The generated types give table-returning functions as Record<string, unknown>[]; each row
// is checked here, so a changed RPC fails loudly instead of rendering undefined.
export function toBoardRow(r: Record<string, unknown>): BoardRow {
  const { rank, username, university_code, points, is_self } = r;
  if (typeof rank !== 'number' || typeof username !== 'string' || typeof points !== 'number' || typeof is_self !== 'boolean'
    || (university_code !== null && typeof university_code !== 'string')) {
    throw new Error('Răspuns neașteptat de la server pentru clasament.');
  }
  return { rank, username, university_code, points, is_self };
}

export const TOP_LIMIT = 50;

export async function fetchTop(period: Period, scope: Scope): Promise<BoardRow[]> {
  const args: TopArgs = { p_period: period, p_scope: scope, p_limit: TOP_LIMIT };
  const { data, error } = await supabase().rpc('leaderboard_top', args);
  if (error) throw error;
  return (data ?? []).map(toBoardRow);
}

// "Poziția ta": the caller with up to five above and five below; only the caller's own row
// when they opted out; nothing when the scope is their university and they have none.
export async function fetchAroundMe(period: Period, scope: Scope): Promise<BoardRow[]> {
  const args: AroundArgs = { p_period: period, p_scope: scope };
  const { data, error } = await supabase().rpc('leaderboard_around_me', args);
  if (error) throw error;
  return (data ?? []).map(toBoardRow);
}

// The caller's own opt-out flag (their profile row; RLS gives only their own).
export async function fetchHidden(userId: string): Promise<boolean> {
  const { data, error } = await supabase().from('user_profiles').select('hide_from_leaderboards').eq('id', userId).maybeSingle();
  if (error) throw error;
  return data?.hide_from_leaderboards ?? false;
}

// Saves the opt-out; returns what the server stored.
export async function saveHidden(hidden: boolean): Promise<boolean> {
  const args: Functions['set_leaderboard_hidden']['Args'] = { p_hidden: hidden };
  const { data, error } = await supabase().rpc('set_leaderboard_hidden', args);
  if (error) throw error;
  return data === true;
}
