// Issue 19, bug 1, through the stock supabase-js as the app calls it: the sign-up makes the
// profile from its metadata, the spec's create_user_profile call then returns it, and a
// taken username refuses the sign-up itself (no account left behind).
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const anon = () => createClient(url, process.env.ANON_KEY!, opts);
const service = createClient(url, process.env.SERVICE_ROLE_KEY!, opts);
const run = `${Date.now() % 1_000_000}`;

describe('sign-up makes the profile with the account', () => {
  test('profile from the metadata, create_user_profile returns it, a taken username refuses', async () => {
    const sb = anon();
    const email = `sp-${run}@example.ro`;
    const meta = { name: 'Elena Dobre', username: `elena_${run}`, university_code: 'UAIC', university_category: 'Public', university_name: 'x' };
    const { data, error } = await sb.auth.signUp({ email, password: 'parola1', options: { data: meta } });
    expect(error).toBeNull();
    const id = data.user!.id;
    const { data: row } = await service.from('user_profiles').select('id, username, university_code').eq('id', id).single();
    expect(row).toEqual({ id, username: meta.username, university_code: 'UAIC' });

    const args = { p_id: id, p_email: email, p_name: meta.name, p_username: meta.username, p_university_code: 'UAIC', p_university_category: 'Public', p_university_name: 'x' };
    for (let i = 0; i < 2; i++) {
      const again = await sb.rpc('create_user_profile', args);
      expect(again.error).toBeNull();
      expect(again.data).toMatchObject({ id, username: meta.username, university_code: 'UAIC', role: 'user' });
    }

    const other = `sp-other-${run}@example.ro`;
    const taken = await anon().auth.signUp({ email: other, password: 'parola1', options: { data: { ...meta, username: meta.username.toUpperCase() } } });
    expect(taken.error?.message).toBe('Username is already taken');
    expect(taken.error?.status).toBe(400);
    const { data: list } = await service.auth.admin.listUsers({ page: 1, perPage: 1000 });
    expect(list.users.filter((u) => u.email === other)).toHaveLength(0);
  });
});
