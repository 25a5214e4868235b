// The leaderboard RPCs (sql/app 016) with the stock supabase-js client: what a browser
// receives (the five fields only), who may call them, and the opt-out taking effect for
// other students at once, in public_profiles too.
import { beforeAll, describe, expect, test } from 'vitest';
import { anonClient, code, seed, service, student, type Student } from './rls-shared';

let a: Student;
let b: Student;

async function complete(s: Student, n: number) {
  for (let i = 0; i < n; i++) {
    const caseId = await seed('cases', { case_code: code(), title: 'Caz clasament', domain: 'civil', verified: true });
    const { error } = await service.from('case_submissions').insert({
      user_id: s.id, case_id: caseId, submission_text: 't', status: 'graded', score: '70/100', score_value: 70,
      feedback_text: 'ok', feedback_at: new Date().toISOString(),
    });
    if (error) throw error;
  }
}

const names = (rows: unknown) => (rows as { username: string }[]).map((r) => r.username);

beforeAll(async () => {
  [a, b] = await Promise.all([student('lba'), student('lbb')]);
  await complete(a, 2);
  await complete(b, 1);
});

describe('leaderboard RPCs', () => {
  test('rows carry rank, username, university code, points and the self flag only', async () => {
    for (const fn of ['leaderboard_top', 'leaderboard_around_me'] as const) {
      const { data, error } = await b.sb.rpc(fn, { p_period: 'week', p_scope: 'global' });
      expect(error).toBeNull();
      const rows = data as Record<string, unknown>[];
      expect(names(rows)).toEqual(expect.arrayContaining([a.username, b.username]));
      for (const r of rows) expect(Object.keys(r).sort()).toEqual(['is_self', 'points', 'rank', 'university_code', 'username']);
      const mine = rows.find((r) => r.username === b.username);
      expect(mine).toMatchObject({ points: 10, is_self: true, university_code: 'UB' });
      expect(rows.find((r) => r.username === a.username)).toMatchObject({ points: 20, is_self: false });
      expect(JSON.stringify(rows)).not.toContain(a.id);
      expect(JSON.stringify(rows)).not.toContain('@');
    }
  });

  test('anon and the service key are refused; bad arguments are 22023', async () => {
    for (const fn of ['leaderboard_top', 'leaderboard_around_me']) {
      expect((await anonClient().rpc(fn, {})).error).not.toBeNull();
      expect((await service.rpc(fn, {})).error).not.toBeNull();
    }
    expect((await anonClient().rpc('set_leaderboard_hidden', { p_hidden: true })).error).not.toBeNull();
    expect((await a.sb.rpc('leaderboard_top', { p_period: 'year' })).error?.code).toBe('22023');
    expect((await a.sb.rpc('leaderboard_top', { p_scope: 'UBB' })).error?.code).toBe('22023');
    // The internal ranking (it holds user ids) is not callable.
    expect((await a.sb.rpc('leaderboard_ranking', { p_since: '2020-01-01', p_scoped: false, p_university: null, p_include: null })).error).not.toBeNull();
  });

  test('opting out hides a student from every board at once; opting in shows them again', async () => {
    const set = await a.sb.rpc('set_leaderboard_hidden', { p_hidden: true });
    expect(set).toMatchObject({ data: true, error: null });
    // Stored on the own profile, readable by its owner only; not writable directly.
    const own = await a.sb.from('user_profiles').select('hide_from_leaderboards').eq('id', a.id).single();
    expect(own.data?.hide_from_leaderboards).toBe(true);
    const direct = await b.sb.from('user_profiles').update({ hide_from_leaderboards: false }).eq('id', a.id);
    expect(direct.error).not.toBeNull();

    for (const period of ['week', 'all']) {
      for (const scope of ['global', 'university']) {
        for (const fn of ['leaderboard_top', 'leaderboard_around_me']) {
          const { data, error } = await b.sb.rpc(fn, { p_period: period, p_scope: scope });
          expect(error).toBeNull();
          expect(names(data)).not.toContain(a.username);
        }
      }
    }
    expect(names((await b.sb.from('public_profiles').select('username').eq('username', a.username)).data)).toEqual([]);
    // The student who opted out sees only their own row.
    const self = await a.sb.rpc('leaderboard_around_me', { p_period: 'all', p_scope: 'global' });
    expect(self.data).toEqual([expect.objectContaining({ username: a.username, points: 20, is_self: true })]);

    expect((await a.sb.rpc('set_leaderboard_hidden', { p_hidden: false })).data).toBe(false);
    expect(names((await b.sb.rpc('leaderboard_top', { p_period: 'all', p_scope: 'global' })).data)).toContain(a.username);
  });
});
