// PostgREST behaviours (issue 17) with the stock supabase-js client against the core alone
// (CASUS_APP=none), on fixture/100_postgrest.sql. The same behaviours are tested table by
// table in server/internal/postgrest/compat_test.go.
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
const sb = createClient(url, anonKey, options);

describe('fixture relationships', () => {
  test('self-referencing foreign key embeds the mentor', async () => {
    const { data, error } = await sb.from('lib_authors').select('name, mentor:lib_authors!mentor_id(name)').eq('id', 2);
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Bogdan', mentor: { name: 'Ana' } }]);
  });

  test('many-to-many through the junction', async () => {
    const { data, error } = await sb
      .from('lib_books')
      .select('title, lib_authors(name)')
      .eq('id', 1)
      .order('name', { referencedTable: 'lib_authors' });
    expect(error).toBeNull();
    expect(data).toEqual([{ title: 'Drept civil', lib_authors: [{ name: 'Ana' }, { name: 'Bogdan' }] }]);
  });

  test('a view over a table', async () => {
    const { data, error } = await sb.from('lib_books_view').select('title').eq('id', 2);
    expect(error).toBeNull();
    expect(data).toEqual([{ title: 'Drept penal' }]);
  });

  test('a second exposed schema', async ({ skip }) => {
    // Exposed only when the server started with it (make test/core sets WITH_SERVER_SCHEMAS).
    if (!(process.env.DB_SCHEMAS ?? '').split(',').includes('lib_extra')) skip();
    const { data, error } = await sb.schema('lib_extra').from('items').select('label');
    expect(error).toBeNull();
    expect(data).toEqual([{ label: 'din schema a doua' }]);
  });
});
