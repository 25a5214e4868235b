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
  test('self-referencing foreign key embeds the mentor and the mentees', async () => {
    // PostgREST's convention: the key column names the parent, the table (or the table
    // with the key column as hint) the children.
    const { data, error } = await sb.from('lib_authors').select('name, mentor:mentor_id(name)').eq('id', 2);
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Bogdan', mentor: { name: 'Ana' } }]);
    const mentees = await sb
      .from('lib_authors')
      .select('name, mentees:lib_authors!mentor_id(name)')
      .eq('id', 1)
      .order('name', { referencedTable: 'mentees' });
    expect(mentees.error).toBeNull();
    expect(mentees.data).toEqual([{ name: 'Ana', mentees: [{ name: 'Bogdan' }, { name: 'Cristina' }] }]);
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

describe('filters', () => {
  test('nxr is &< and nxl is &>', async () => {
    const nxr = await sb.from('lib_books').select('id').filter('span', 'nxr', '[1,10)').order('id');
    expect(nxr.error).toBeNull();
    expect(nxr.data).toEqual([{ id: 1 }]);
    const nxl = await sb.from('lib_books').select('id').filter('span', 'nxl', '[5,20)').order('id');
    expect(nxl.data).toEqual([{ id: 2 }, { id: 3 }]);
  });

  test('like, ilike and eq with (any) and (all)', async () => {
    const anyOf = await sb.from('lib_books').select('id').likeAnyOf('title', ['*civil', 'Contr*']).order('id');
    expect(anyOf.error).toBeNull();
    expect(anyOf.data).toEqual([{ id: 1 }, { id: 3 }]);
    const allOf = await sb.from('lib_books').select('id').likeAllOf('title', ['Drept*', '*penal']);
    expect(allOf.data).toEqual([{ id: 2 }]);
    const iany = await sb.from('lib_books').select('id').ilikeAnyOf('title', ['*CIVIL', 'obli*']).order('id');
    expect(iany.data).toEqual([{ id: 1 }, { id: 4 }]);
    const iall = await sb.from('lib_books').select('id').ilikeAllOf('title', ['drept*', '*CIVIL']);
    expect(iall.data).toEqual([{ id: 1 }]);
    const eqAny = await sb.from('lib_books').select('id').filter('year', 'eq(any)', '{2020,2022}').order('id');
    expect(eqAny.data).toEqual([{ id: 1 }, { id: 3 }]);
  });
});

describe('embeds', () => {
  test('one-to-one embeds as an object', async () => {
    const { data, error } = await sb.from('lib_authors').select('name, lib_profiles(bio)').in('id', [1, 3]).order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { name: 'Ana', lib_profiles: { bio: 'Profesoară' } },
      { name: 'Cristina', lib_profiles: null },
    ]);
  });

  test('an empty embed filters and is left out', async () => {
    const { data, error } = await sb.from('lib_authors').select('name, lib_profiles!inner()').order('id');
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Ana' }, { name: 'Bogdan' }]);
  });
});

describe('statements once edited as text', () => {
  test('a many-to-many embed with !inner, and is.null on it', async () => {
    const inner = await sb.from('lib_books').select('title, lib_authors!inner(name)').eq('lib_authors.name', 'Cristina');
    expect(inner.error).toBeNull();
    expect(inner.data).toEqual([{ title: 'Contracte', lib_authors: [{ name: 'Cristina' }] }]);
    const orphans = await sb.from('lib_books').select('title, lib_authors()').is('lib_authors', null).order('id');
    expect(orphans.error).toBeNull();
    expect(orphans.data).toEqual([{ title: 'Obligații' }]);
  });

  test('a spread alias holding " as "', async () => {
    const { data, error } = await sb.from('lib_profiles').select('bio, ...lib_authors("x as y":name)').eq('author_id', 1);
    expect(error).toBeNull();
    expect(data).toEqual([{ bio: 'Profesoară', 'x as y': 'Ana' }]);
  });
});

describe('output', () => {
  test('stripNulls() leaves null members out', async () => {
    const { data, error } = await sb.from('lib_books').select('id, year, note').in('id', [2, 4]).order('id').stripNulls();
    expect(error).toBeNull();
    expect(data).toEqual([{ id: 2, year: 2021 }, { id: 4, note: ' spaced ' }]);
    const one = await sb.from('lib_books').select('id, year, note').eq('id', 4).single().stripNulls();
    expect(one.data).toEqual({ id: 4, note: ' spaced ' });
  });

  test('csv() quotes as PostgREST, no trailing newline', async () => {
    const { data, error } = await sb.from('lib_books').select('id, title, note').order('id').csv();
    expect(error).toBeNull();
    expect(data).toBe(
      'id,title,note\n1,"Drept civil","a, ""b"""\n2,"Drept penal",\n3,Contracte,"line one\nline two"\n4,Obligații," spaced "',
    );
  });
});

describe('counts and statuses', () => {
  test('a counted partial read answers 206', async () => {
    const exact = await sb.from('lib_books').select('id', { count: 'exact' }).order('id').limit(1);
    expect(exact.error).toBeNull();
    expect(exact.status).toBe(206);
    expect(exact.count).toBe(4);
    const planned = await sb.from('lib_books').select('id', { count: 'planned' }).order('id').limit(2);
    expect(planned.status).toBe(206);
    expect(planned.count).toBe(4);
  });

  test('insert with select() and count sends the total', async () => {
    const { data, count, status, error } = await sb
      .from('lib_counters')
      .insert([{ id: 20, label: 'a' }, { id: 21, label: 'b' }], { count: 'exact' })
      .select('id');
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(count).toBe(2);
    expect(data).toEqual([{ id: 20 }, { id: 21 }]);
  });

  test('an upsert that only updates answers 200', async () => {
    const upd = await sb.from('lib_counters').upsert({ id: 1, label: 'unu', hits: 7 });
    expect(upd.error).toBeNull();
    expect(upd.status).toBe(200);
    const ins = await sb.from('lib_counters').upsert({ id: 22, label: 'nou' }).select('id, hits');
    expect(ins.status).toBe(201);
    expect(ins.data).toEqual([{ id: 22, hits: 0 }]);
  });

  test('missing=default fills identity and default columns', async () => {
    const { data, error } = await sb
      .from('lib_books')
      .insert([{ id: 60, title: 'A', pages: 7 }, { title: 'B', status: 'published' }], { defaultToNull: false })
      .select('title, status, pages');
    expect(error).toBeNull();
    expect(data).toEqual([
      { title: 'A', status: 'draft', pages: 7 },
      { title: 'B', status: 'published', pages: 100 },
    ]);
  });
});
