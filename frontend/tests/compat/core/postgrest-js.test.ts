// The postgrest-js suite's behaviours that a stock Supabase project meets (issue 28), with
// the stock client on fixture/210_postgrest_js.sql and the fixture's in-database config
// (aggregates, plans, tx=rollback allowed). Expected answers are PostgREST's, as the
// postgrest-js suite records them against a real PostgREST.
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
const sb = createClient(url, anonKey, options);

const ambiguous = {
  code: 'PGRST203',
  details: null,
  hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
  // PostgREST lists the candidates sorted by their parameters, not in creation order.
  message:
    'Could not choose the best candidate function between: public.pj_unresolvable(a => integer), public.pj_unresolvable(a => text)',
};

describe('RPC overloads', () => {
  test('the overload without arguments is called', async () => {
    const res = await sb.rpc('pj_unresolvable');
    expect(res.error).toBeNull();
    expect(res.status).toBe(204);
  });

  test('a text or an int argument cannot choose between (a text) and (a int): PGRST203', async () => {
    for (const a of ['test', 1]) {
      const res = await sb.rpc('pj_unresolvable', { a });
      expect(res.status).toBe(300);
      expect(res.error).toEqual(ambiguous);
    }
  });
});

describe('bulk writes with missing=default', () => {
  test('insert fills each row’s missing columns with their defaults', async () => {
    const res = await sb
      .from('pj_channels')
      .insert([{ id: 900 }, { slug: 'test-slug' }], { defaultToNull: false })
      .select()
      .rollback();
    expect(res.error).toBeNull();
    expect(res.status).toBe(201);
    expect(res.data?.[0]).toEqual({ id: 900, data: null, slug: null });
    expect(res.data?.[1]).toMatchObject({ data: null, slug: 'test-slug' });
    expect(res.data?.[1].id).toBeGreaterThan(100); // the identity's next value
  });

  test('upsert too, and rollback() keeps nothing', async () => {
    const res = await sb
      .from('pj_channels')
      .upsert([{ id: 1 }, { slug: 'test-slug' }], { defaultToNull: false })
      .select()
      .rollback();
    expect(res.error).toBeNull();
    expect(res.data?.[0]).toEqual({ id: 1, data: null, slug: null });
    expect(res.data?.[1]).toMatchObject({ data: null, slug: 'test-slug' });
    const after = await sb.from('pj_channels').select('id, slug').eq('id', 1);
    expect(after.data).toEqual([{ id: 1, slug: 'public' }]);
  });
});

describe('spreads', () => {
  const details = ['Details for public channel', 'Details for random channel', null, null];

  test('a spread of one column beside count()', async () => {
    const { data, error } = await sb
      .from('pj_users')
      .select('username, pj_messages(pj_channels(count(), ...pj_channel_details(details)))')
      .eq('username', 'supabot')
      .order('id', { referencedTable: 'pj_messages' })
      .single();
    expect(error).toBeNull();
    expect(data).toEqual({
      username: 'supabot',
      pj_messages: details.map((d) => ({ pj_channels: { count: 1, details: d } })),
    });
  });

  test('a spread of every column beside count()', async () => {
    const { data, error } = await sb
      .from('pj_users')
      .select('username, pj_messages(pj_channels(count(), ...pj_channel_details(*)))')
      .eq('username', 'supabot')
      .order('id', { referencedTable: 'pj_messages' })
      .single();
    expect(error).toBeNull();
    expect(data?.pj_messages).toEqual(
      [1, 2, null, null].map((id, i) => ({ pj_channels: { count: 1, id, details: details[i] } })),
    );
  });

  test('sum() beside a spread, and inside it', async () => {
    const res = await sb
      .from('pj_users')
      .select('username, pj_messages(pj_channels(id.sum(), ...pj_channel_details(details_sum:id.sum(), details)))')
      .eq('username', 'supabot')
      .order('id', { referencedTable: 'pj_messages' })
      .single();
    expect(res.error).toBeNull();
    expect(res.data?.pj_messages).toEqual([
      { pj_channels: { sum: 1, details_sum: 1, details: details[0] } },
      { pj_channels: { sum: 2, details_sum: 2, details: details[1] } },
      { pj_channels: { sum: 3, details_sum: null, details: null } },
      { pj_channels: { sum: 3, details_sum: null, details: null } },
    ]);
  });

  test('a spread nested in an embed, with aliases', async () => {
    const { data, error } = await sb
      .from('pj_messages')
      .select('id, pj_channels(id, ...pj_channel_details(details_id:id, details))')
      .eq('id', 1);
    expect(error).toBeNull();
    expect(data).toEqual([{ id: 1, pj_channels: { id: 1, details_id: 1, details: details[0] } }]);
  });

  test('sum() without a column is an embed named sum: PGRST200', async () => {
    const res = await sb.from('pj_users').select('username, sum()');
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({
      code: 'PGRST200',
      message: "Could not find a relationship between 'pj_users' and 'sum' in the schema cache",
    });
  });
});

describe('the same destination embedded twice', () => {
  test('column hints tell the foreign keys apart', async () => {
    const { data, error } = await sb
      .from('pj_best_friends')
      .select(
        'first_user:pj_users!first_user(username), second_user:pj_users!second_user(username), third_wheel:pj_users!third_wheel(username)',
      )
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { first_user: { username: 'supabot' }, second_user: { username: 'kiwicopple' }, third_wheel: { username: 'awailas' } },
      { first_user: { username: 'supabot' }, second_user: { username: 'awailas' }, third_wheel: null },
    ]);
  });
});

describe('explain()', () => {
  test('json and text formats', async () => {
    const json = await sb.from('pj_users').select().explain({ format: 'json' });
    expect(json.error).toBeNull();
    expect(json.data).toEqual([expect.objectContaining({ Plan: expect.any(Object) })]);
    const text = await sb.from('pj_users').select().explain();
    expect(text.data).toMatch(/Aggregate {2}\(cost=.*/);
  });

  test('with options: analyze, verbose, settings, buffers, wal', async () => {
    const json = await sb
      .from('pj_users')
      .select()
      .explain({ analyze: true, verbose: true, settings: true, buffers: true, wal: true, format: 'json' });
    expect(json.error).toBeNull();
    const plan = (json.data as unknown as Array<Record<string, Record<string, unknown>>>)[0];
    expect(plan.Plan).toHaveProperty('Actual Rows'); // analyze
    expect(plan.Plan).toHaveProperty('Output'); // verbose
    expect(plan.Plan).toHaveProperty('Shared Hit Blocks'); // buffers
    expect(plan.Plan).toHaveProperty('WAL Records'); // wal
    expect(plan).toHaveProperty('Settings');
    const text = await sb.from('pj_users').select('username').explain({ analyze: true, verbose: true });
    expect(text.data).toMatch(/actual time=/);
    expect(text.data).toMatch(/Output: /);
  });
});

describe('GeoJSON', () => {
  test('geojson() answers a FeatureCollection', async ({ skip }) => {
    // The fixture creates pj_shops only where PostGIS is installed (Debian: postgresql-15-postgis-3).
    const probe = await sb.from('pj_shops').select('id');
    if (probe.status === 404) skip();
    const res = await sb.from('pj_shops').select().geojson();
    expect(res.error).toBeNull();
    expect(res.data).toEqual({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [-71.10044, 42.373695] },
          properties: { id: 1, address: '1369 Cambridge St' },
        },
      ],
    });
  });
});
