// PostgREST v12–v14 behaviours (issue 17 §2) with the stock supabase-js client against the
// core alone, on fixture/110_postgrest_features.sql. The same behaviours are tested table
// by table in server/internal/postgrest/features_compat_test.go.
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
const sb = createClient(url, anonKey, options);

describe('rpc', () => {
  test('count=exact sends the total of a set-returning function', async () => {
    const { data, error, count, status } = await sb
      .rpc('lib_books_after', { y: 2019 }, { count: 'exact' })
      .select('id')
      .order('id')
      .limit(1);
    expect(error).toBeNull();
    expect(status).toBe(206);
    expect(count).toBe(3);
    expect(data).toEqual([{ id: 1 }]);
  });

  test('overloads are chosen by argument names', async () => {
    const one = await sb.rpc('lib_greet', { name: 'Ana' });
    expect(one.error).toBeNull();
    expect(one.data).toBe('Salut, Ana');
    const two = await sb.rpc('lib_greet', { first: 'Ana', last: 'Pop' });
    expect(two.data).toBe('Salut, Ana Pop');
  });

  test('PGRST202 and PGRST203 as PostgREST writes them', async () => {
    const none = await sb.rpc('lib_greet', { nope: 1 });
    expect(none.status).toBe(404);
    expect(none.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.lib_greet(nope) in the schema cache',
      details:
        'Searched for the function public.lib_greet with parameter nope or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.lib_greet(name)',
    });
    const several = await sb.rpc('lib_pick', { v: 1 });
    expect(several.status).toBe(300);
    expect(several.error).toMatchObject({
      code: 'PGRST203',
      message:
        'Could not choose the best candidate function between: public.lib_pick(v => integer), public.lib_pick(v => text)',
    });
  });

  test('a single unnamed json parameter takes the body', async () => {
    const { data, error } = await sb.rpc('lib_echo_json', { a: [1, 2] });
    expect(error).toBeNull();
    expect(data).toEqual({ got: { a: [1, 2] } });
  });

  test('a row-type argument', async () => {
    const { data, error } = await sb.rpc('lib_author_label', { a: { id: 7, name: 'Ion', mentor_id: null } });
    expect(error).toBeNull();
    expect(data).toBe('Ion #7');
  });

  test('embedding on the rows of a function returning a table type', async () => {
    const { data, error } = await sb.rpc('lib_books_after', { y: 2020 }).select('title, lib_authors(name)').order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { title: 'Drept penal', lib_authors: [{ name: 'Bogdan' }] },
      { title: 'Contracte', lib_authors: [{ name: 'Cristina' }] },
    ]);
  });
});

describe('columns', () => {
  test('quoted column names with spaces in select, filters and order', async () => {
    const { data, error } = await sb
      .from('lib_shelves')
      .select('id, "shelf name"')
      .not('book id', 'is', null)
      .order('shelf name', { ascending: false });
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1, 'shelf name': 'raft de sus' },
      { id: 2, 'shelf name': 'raft de jos' },
    ]);
  });

  test('computed fields in select, filters and order', async () => {
    const { data, error } = await sb
      .from('lib_books')
      .select('id, title_upper, len:title_length')
      .in('id', [1, 2, 3, 4]) // other suites insert books
      .lt('title_length', 10)
      .order('title_length', { ascending: false })
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 3, title_upper: 'CONTRACTE', len: 9 },
      { id: 4, title_upper: 'OBLIGAȚII', len: 9 },
    ]);
  });
});

describe('relationships', () => {
  test('embedding by foreign-key constraint name', async () => {
    const { data, error } = await sb.from('lib_loans').select('id, lender:lib_authors!loan_lender(name)').order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1, lender: { name: 'Ana' } },
      { id: 2, lender: { name: 'Bogdan' } },
      { id: 3, lender: null },
    ]);
  });

  test('PGRST201 lists the relationships with their cardinality', async () => {
    const { error, status } = await sb.from('lib_loans').select('id, lib_authors(name)');
    expect(status).toBe(300);
    expect(error).toMatchObject({
      code: 'PGRST201',
      details: [
        {
          cardinality: 'many-to-one',
          embedding: 'lib_loans with lib_authors',
          relationship: 'loan_borrower using lib_loans(borrower_id) and lib_authors(id)',
        },
        {
          cardinality: 'many-to-one',
          embedding: 'lib_loans with lib_authors',
          relationship: 'loan_lender using lib_loans(lender_id) and lib_authors(id)',
        },
      ],
      hint: "Try changing 'lib_authors' to one of the following: 'lib_authors!loan_borrower', 'lib_authors!loan_lender'. Find the desired relationship in the 'details' key.",
    });
  });

  test('PGRST200 suggests the closest name', async () => {
    const { error } = await sb.from('lib_loans').select('id, lib_book(title)');
    expect(error).toMatchObject({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'lib_loans' and 'lib_book' in the schema 'public', but no matches were found.",
      hint: "Perhaps you meant 'lib_books' instead of 'lib_book'.",
    });
  });

  test('a view keeps the foreign keys of its table', async () => {
    const { data, error } = await sb.from('lib_loans_view').select('id, lib_books(title), lib_authors(name)').eq('id', 2);
    expect(error).toBeNull();
    expect(data).toEqual([{ id: 2, lib_books: { title: 'Drept penal' }, lib_authors: { name: 'Dan' } }]);
  });

  test('computed relationships embed like tables', async () => {
    const { data, error } = await sb
      .from('lib_books')
      .select('title, lead:lib_book_lead(name)')
      .in('id', [1, 4])
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { title: 'Drept civil', lead: { name: 'Ana' } },
      { title: 'Obligații', lead: null },
    ]);
    const many = await sb.from('lib_authors').select('name, lib_author_books(title)').eq('id', 2);
    expect(many.data).toEqual([{ name: 'Bogdan', lib_author_books: [{ title: 'Drept civil' }, { title: 'Drept penal' }] }]);
  });

  test('a spread on a to-many relationship gives arrays', async () => {
    const { data, error } = await sb
      .from('lib_authors')
      .select('name, ...lib_books(title)')
      .eq('id', 2)
      .order('id', { referencedTable: 'lib_books' });
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Bogdan', title: ['Drept civil', 'Drept penal'] }]);
  });
});

describe('aggregates', () => {
  test('rel(count) counts the related rows', async () => {
    const { data, error } = await sb.from('lib_authors').select('name, lib_books(count)').in('id', [2, 4]).order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { name: 'Bogdan', lib_books: [{ count: 2 }] },
      { name: 'Dan', lib_books: [{ count: 0 }] },
    ]);
  });

  test('other aggregates: on through the fixture’s pgrst.db_aggregates_enabled', async () => {
    // Off (PGRST123) without it: server/internal/postgrest TestInDatabaseConfigOnTheLoginRole.
    const { data, error } = await sb.from('lib_books').select('pages.sum()').lte('id', 4);
    expect(error).toBeNull();
    expect(data).toEqual([{ sum: 400 }]);
  });
});

describe('PostGIS', () => {
  test('geojson() answers a FeatureCollection', async ({ skip }) => {
    // The fixture creates lib_places only where PostGIS is installed.
    const probe = await sb.from('lib_places').select('id');
    if (probe.status === 404) skip();
    const { data, error } = await sb.from('lib_places').select('id, name, location').geojson();
    expect(error).toBeNull();
    expect(data).toEqual({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [26.1, 44.43] },
          properties: { id: 1, name: 'Biblioteca' },
        },
      ],
    });
  });
});
