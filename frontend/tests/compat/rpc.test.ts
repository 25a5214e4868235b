// The domain RPCs through /rest/v1/rpc with the stock supabase-js client, with good and bad
// input: the sign-up pair (create_user_profile as anon right after signUp,
// is_username_available), update_user_role, search_cases, save_generated_case,
// submit_feedback and leaderboard.
import { beforeAll, describe, expect, test } from 'vitest';
import { anonClient, code, run, seed, service, student, type Student } from './rls-shared';

let a: Student;
let b: Student;
let admin: Student;
let civCode: string;

beforeAll(async () => {
  [a, b, admin] = await Promise.all([student('ra'), student('rb'), student('radm', 'admin')]);
  civCode = code();
  await seed('cases', { case_code: civCode, title: `Caz 7: Răspunderea comitentului ${run}`, level: 'Dificil', week_number: 7, domain: 'civil', verified: true });
});

describe('create_user_profile and is_username_available', () => {
  test('anon right after sign-up: only with the matching id and e-mail, once', async () => {
    const email = `rpc-new-${run}@example.ro`.toLowerCase();
    const { data, error } = await service.auth.admin.createUser({ email, password: 'parola-sigura', email_confirm: false });
    expect(error).toBeNull();
    const id = data.user!.id;
    const anon = anonClient();
    const args = {
      p_id: id, p_email: email, p_name: 'Ion Popescu', p_username: `ion_${run}`.toLowerCase(),
      p_university_code: 'UBB', p_university_category: 'Public', p_university_name: 'ignored',
    };
    const wrong = await anon.rpc('create_user_profile', { ...args, p_email: 'altcineva@example.ro' });
    expect(wrong.error?.code).toBe('42501');
    const short = await anon.rpc('create_user_profile', { ...args, p_username: 'io' });
    expect(short.error?.code).toBe('23514');
    expect(short.error?.message).toBe('Username must be at least 3 characters');
    const bad = await anon.rpc('create_user_profile', { ...args, p_username: 'ion popescu' });
    expect(bad.error?.message).toBe('Username can only contain letters, numbers, and underscores');
    const taken = await anon.rpc('create_user_profile', { ...args, p_username: a.username.toUpperCase() });
    expect(taken.error?.code).toBe('23505');
    const uni = await anon.rpc('create_user_profile', { ...args, p_university_code: 'NOPE' });
    expect(uni.error?.code).toBe('23503');

    const ok = await anon.rpc('create_user_profile', args);
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({ id, email, university_code: 'UBB', university_category: 'Public', role: 'user', is_admin: false });
    expect((ok.data as { university_name: string }).university_name).toBe('Universitatea „Babeș-Bolyai” din Cluj-Napoca');

    const again = await anon.rpc('create_user_profile', { ...args, p_name: 'Hacker' });
    expect(again.error?.code).toBe('23505');
    // Someone else's existing profile cannot be overwritten either.
    const other = await anon.rpc('create_user_profile', { ...args, p_id: a.id, p_email: a.email });
    expect(other.error).not.toBeNull();
  });

  test('a signed-in user cannot create a profile for another id', async () => {
    const { error } = await a.sb.rpc('create_user_profile', {
      p_id: b.id, p_email: b.email, p_name: 'Xx', p_username: `x_${run}`.toLowerCase(), p_university_code: 'UB',
      p_university_category: 'Public', p_university_name: 'x',
    });
    expect(error?.code).toBe('42501');
  });

  test('is_username_available, as anon', async () => {
    const anon = anonClient();
    const cases: [string, boolean][] = [
      [`liber_${run}`.toLowerCase(), true], [a.username, false], [a.username.toUpperCase(), false],
      ['ab', false], ['', false], ['cu spatiu', false], ["x'; drop table user_profiles; --", false],
    ];
    for (const [username, want] of cases) {
      const { data, error } = await anon.rpc('is_username_available', { p_username: username });
      expect(error, username).toBeNull();
      expect(data, username).toBe(want);
    }
  });
});

describe('update_user_role', () => {
  test('only admins; clear permission error otherwise', async () => {
    for (const sb of [anonClient(), a.sb, b.sb]) {
      const { error } = await sb.rpc('update_user_role', { p_user_id: a.id, p_new_role: 'admin' });
      expect(error?.code).toBe('42501');
      expect(error?.message).toMatch(/only administrators/);
    }
    const self = await a.sb.rpc('update_user_role', { p_user_id: a.id, p_new_role: 'admin' });
    expect(self.error?.code).toBe('42501');
    const unknown = await admin.sb.rpc('update_user_role', { p_user_id: b.id, p_new_role: 'superuser' });
    expect(unknown.error?.code).toBe('22023');
    const missing = await admin.sb.rpc('update_user_role', { p_user_id: '00000000-0000-0000-0000-000000000000', p_new_role: 'user' });
    expect(missing.error).not.toBeNull();

    const mod = await admin.sb.rpc('update_user_role', { p_user_id: b.id, p_new_role: 'moderator' });
    expect(mod.error).toBeNull();
    expect(mod.data).toMatchObject({ id: b.id, role: 'moderator', is_admin: false });
    const adm = await admin.sb.rpc('update_user_role', { p_user_id: b.id, p_new_role: 'admin' });
    expect(adm.data).toMatchObject({ role: 'admin', is_admin: true });
    // B is an admin now, but without a second factor: at aal1 the database shows B only
    // B's own profile until B enrols (MFA_REQUIRED_ROLES=admin).
    const { data } = await b.sb.from('user_profiles').select('id').in('id', [a.id, b.id, admin.id]);
    expect(data).toHaveLength(1);
    await admin.sb.rpc('update_user_role', { p_user_id: b.id, p_new_role: 'user' });
  });
});

describe('search_cases', () => {
  test('ignores case and diacritics, ranks the code first, treats % and _ literally', async () => {
    const search = async (q: string) => {
      const { data, error } = await a.sb.rpc('search_cases', { search_query: q, max_results: 10 });
      expect(error, q).toBeNull();
      return data as { case_code: string; title: string; level: string; verified: boolean; category: string | null; subcategory: string | null }[];
    };
    const hit = await search(`raspunderea comitentului ${run.toLowerCase()}`);
    expect(hit.map((r) => r.case_code)).toEqual([civCode]);
    expect(hit[0]).toMatchObject({ level: 'Dificil', verified: true });
    expect((await search(`RĂSPUNDEREA COMITENTULUI ${run}`)).map((r) => r.case_code)).toEqual([civCode]);
    expect((await search(civCode.toLowerCase()))[0].case_code).toBe(civCode);
    expect(await search('')).toEqual([]);
    expect(await search('   ')).toEqual([]);
    expect(await search('a')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('%%%')).toEqual([]);
    expect(await search('___')).toEqual([]);
    const { data } = await a.sb.rpc('search_cases', { search_query: 'caz' });
    expect((data as unknown[]).length).toBeLessThanOrEqual(10);
    const anon = await anonClient().rpc('search_cases', { search_query: 'caz' });
    expect(anon.error).not.toBeNull();
  });
});

describe('save_generated_case', () => {
  test('saves atomically, unverified, renumbered; duplicate code is 23505', async () => {
    const c = code().toLowerCase();
    const payload = {
      case_code: `  ${c} `, title: 'Caz generat', level: 'usor', week_number: 3, legal_problem: 'Problema', case_description: 'Descriere',
      question: 'Întrebare?', category: 'Contracte', subcategory: 'Vânzarea', verified: true, user_id: b.id,
      articles: [{ article_number: '1650', article_reference: 'Art. 1650 C.civ.' }],
      analysis_steps: [{ step_number: 4, description: 'Primul' }, { step_number: 5, description: '' }, { step_number: 9, description: 'Al doilea' }],
      hints: [{ hint_number: 2, text: '' }, { hint_number: 7, text: 'Indiciu' }],
    };
    const { data: id, error } = await a.sb.rpc('save_generated_case', { p_case: payload });
    expect(error).toBeNull();
    const { data: row } = await a.sb.from('cases').select('case_code, level, verified, user_id, domain').eq('id', id as string).single();
    expect(row).toEqual({ case_code: c.toUpperCase(), level: 'Ușor', verified: false, user_id: a.id, domain: 'civil' });
    const { data: steps } = await a.sb.from('case_analysis_steps').select('step_number, step_description').eq('case_id', id as string).order('step_number');
    expect(steps).toEqual([{ step_number: 1, step_description: 'Primul' }, { step_number: 2, step_description: 'Al doilea' }]);
    const { data: hints } = await a.sb.from('case_hints').select('hint_number, hint_text').eq('case_id', id as string);
    expect(hints).toEqual([{ hint_number: 1, hint_text: 'Indiciu' }]);

    const dup = await b.sb.rpc('save_generated_case', { p_case: { ...payload, case_code: c.toUpperCase() } });
    expect(dup.error?.code).toBe('23505');
    const invalid = await a.sb.rpc('save_generated_case', { p_case: { ...payload, case_code: code(), title: ' ', hints: [] } });
    expect(invalid.error?.code).toBe('23514');
    expect(invalid.error?.message).toBe('Titlul este obligatoriu. Cel puțin un indiciu cu conținut este obligatoriu');
    const anon = await anonClient().rpc('save_generated_case', { p_case: payload });
    expect(anon.error).not.toBeNull();
  });
});

describe('feedback and leaderboard', () => {
  test('submit_feedback returns the row to anonymous visitors too', async () => {
    const { data, error } = await anonClient().rpc('submit_feedback', { p_body: '  Mulțumesc!  ', p_email: 'vizitator@example.ro' });
    expect(error).toBeNull();
    expect(data).toMatchObject({ user_id: null, email: 'vizitator@example.ro', body: 'Mulțumesc!' });
    const mine = await a.sb.rpc('submit_feedback', { p_body: 'Salut', p_email: 'ignored@example.ro' });
    expect(mine.data).toMatchObject({ user_id: a.id, email: null });
    const blank = await anonClient().rpc('submit_feedback', { p_body: '   ' });
    expect(blank.error?.code).toBe('23514');
  });

  test('the old leaderboard (average scores of everyone) is gone; see leaderboard.test.ts', async () => {
    const rpc = a.sb.rpc as unknown as (fn: string, args: object) => PromiseLike<{ error: unknown }>;
    expect((await rpc.call(a.sb, 'leaderboard', { max_results: 100 })).error).not.toBeNull();
    expect((await anonClient().rpc('leaderboard', {})).error).not.toBeNull();
  });
});
