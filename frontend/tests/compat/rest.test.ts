// The data API's query shapes with the stock supabase-js client: every call of spec section 7
// that reads or writes cases, their children, conversations, submissions and feedback, plus
// the PostgREST features the client exposes (single/maybeSingle, counts, ranges, CSV, logic
// trees, embeds, spread, aggregates, upsert, errors). Names are unique per run.
import { beforeAll, describe, expect, test } from 'vitest';
import { anonClient, code, run, seed, service, student, type Student } from './rls-shared';

let a: Student;
let b: Student;
let caseId: string;
let caseCode: string;
const week = 11;
const sub = `Sub ${run}`;

beforeAll(async () => {
  [a, b] = await Promise.all([student('rsa'), student('rsb')]);
  caseCode = code();
  caseId = await seed('cases', {
    case_code: caseCode, title: `Caz 11: Gestiunea de afaceri ${run}`, level: 'Dificil', week_number: week,
    domain: 'civil', category: 'Obligații', subcategory: sub, verified: true,
  });
  await seed('cases', { case_code: code(), title: `Caz 11: Plata nedatorată ${run}`, level: 'Ușor', week_number: week, domain: 'civil', subcategory: sub, verified: true });
  await seed('cases', { case_code: code('PEN'), title: `Caz 11: Furtul ${run}`, level: 'Mediu', week_number: week, domain: 'penal', verified: true });
  for (const [n, ref] of [['1330', 'Art. 1330 C.civ.'], ['1331', 'Art. 1331 C.civ.']]) {
    await seed('case_articles', { case_id: caseId, article_number: n, article_reference: ref });
  }
  for (const n of [2, 1]) await seed('case_analysis_steps', { case_id: caseId, step_number: n, step_description: `Pasul ${n}` });
  await seed('case_hints', { case_id: caseId, hint_number: 1, hint_text: 'Indiciu' });
});

describe('cases (spec 7)', () => {
  test('by week ordered by level; by level case-insensitively; by subcategory', async () => {
    const byWeek = await a.sb.from('cases').select('*').eq('week_number', week).ilike('title', `%${run}`).order('level');
    expect(byWeek.error).toBeNull();
    expect(byWeek.data!.map((c) => c.level)).toEqual(['Dificil', 'Mediu', 'Ușor']);
    const byLevel = await a.sb.from('cases').select('case_code').ilike('level', 'dificil').eq('case_code', caseCode).order('week_number');
    expect(byLevel.data).toEqual([{ case_code: caseCode }]);
    const bySub = await a.sb.from('cases').select('case_code,level').eq('subcategory', sub).order('week_number').order('level');
    expect(bySub.data!.map((c) => c.level)).toEqual(['Dificil', 'Ușor']);
  });

  test('a case by id, single and maybeSingle', async () => {
    const one = await a.sb.from('cases').select('*').eq('id', caseId).single();
    expect(one.error).toBeNull();
    expect(one.data!.case_code).toBe(caseCode);
    const none = await a.sb.from('cases').select('*').eq('id', '00000000-0000-4000-8000-000000000000').maybeSingle();
    expect(none.error).toBeNull();
    expect(none.data).toBeNull();
    const many = await a.sb.from('cases').select('id').eq('subcategory', sub).single();
    expect(many.error?.code).toBe('PGRST116');
    expect(many.status).toBe(406);
  });

  test('a complete case load: children ordered, in parallel and as one embed', async () => {
    const [arts, steps, hints] = await Promise.all([
      a.sb.from('case_articles').select('*').eq('case_id', caseId).order('article_number'),
      a.sb.from('case_analysis_steps').select('*').eq('case_id', caseId).order('step_number'),
      a.sb.from('case_hints').select('*').eq('case_id', caseId).order('hint_number'),
    ]);
    expect(arts.data!.map((r) => r.article_number)).toEqual(['1330', '1331']);
    expect(steps.data!.map((r) => r.step_number)).toEqual([1, 2]);
    expect(hints.data!.map((r) => r.hint_text)).toEqual(['Indiciu']);
    const tree = await a.sb
      .from('cases')
      .select('case_code, case_articles(article_number), case_analysis_steps(step_number), case_hints(hint_number)')
      .eq('id', caseId)
      .order('step_number', { referencedTable: 'case_analysis_steps', ascending: false })
      .single();
    expect(tree.error).toBeNull();
    expect(tree.data!.case_analysis_steps.map((s: { step_number: number }) => s.step_number)).toEqual([2, 1]);
    expect(tree.data!.case_articles).toHaveLength(2);
    expect(tree.data!.case_hints).toHaveLength(1);
  });

  test('many-to-one, spread, !inner, embedded filters and aggregates', async () => {
    const up = await a.sb.from('case_articles').select('article_number, cases(case_code)').eq('case_id', caseId).order('article_number').limit(1);
    expect(up.data).toEqual([{ article_number: '1330', cases: { case_code: caseCode } }]);
    const spread = await a.sb.from('case_articles').select('article_number, ...cases(case_code)').eq('case_id', caseId).eq('article_number', '1331');
    expect(spread.data).toEqual([{ article_number: '1331', case_code: caseCode }]);
    const inner = await a.sb.from('cases').select('case_code, case_articles!inner(article_number)').eq('subcategory', sub).eq('case_articles.article_number', '1331');
    expect(inner.data).toEqual([{ case_code: caseCode, case_articles: [{ article_number: '1331' }] }]);
    const agg = await a.sb.from('cases').select('domain, n:count(), week_number.max()').ilike('title', `%${run}`).order('domain');
    expect(agg.error).toBeNull();
    expect(agg.data).toEqual([{ domain: 'civil', n: 2, max: week }, { domain: 'penal', n: 1, max: week }]);
  });

  test('filters, logic trees, counts, ranges and CSV', async () => {
    const q = await a.sb
      .from('cases')
      .select('case_code', { count: 'exact' })
      .ilike('title', `%${run}`)
      .or(`level.eq.Ușor,and(domain.eq.penal,level.in.(Mediu,Dificil))`)
      .not('case_code', 'is', null)
      .order('case_code')
      .range(0, 0);
    expect(q.error).toBeNull();
    expect(q.count).toBe(2);
    expect(q.data).toHaveLength(1);
    const head = await a.sb.from('cases').select('*', { count: 'exact', head: true }).eq('subcategory', sub);
    expect(head.count).toBe(2);
    expect(head.data).toBeNull();
    const csv = await a.sb.from('cases').select('case_code,level').eq('id', caseId).csv();
    expect(csv.data).toBe(`case_code,level\n${caseCode},Dificil`); // no trailing newline, as PostgREST
    const fts = await a.sb.from('cases').select('case_code').eq('subcategory', sub).textSearch('title', 'gestiunea', { config: 'simple' });
    expect(fts.data).toEqual([{ case_code: caseCode }]);
  });

  test('search_cases RPC returns a list of cases', async () => {
    const { data, error } = await a.sb.rpc('search_cases', { search_query: caseCode, max_results: 10 });
    expect(error).toBeNull();
    expect((data as { case_code: string }[]).map((c) => c.case_code)).toContain(caseCode);
  });
});

describe('saving a generated case (spec 7)', () => {
  test('insert returning id, children, and the duplicate code error', async () => {
    const c = code();
    const ins = await a.sb
      .from('cases')
      .insert({ user_id: a.id, case_code: c, title: `Caz 5: Generat ${run}`, level: 'Mediu', week_number: 5, legal_problem: 'p', case_description: 'd', question: 'q', category: 'Obligații', subcategory: sub, verified: false })
      .select('id')
      .single();
    expect(ins.error).toBeNull();
    const id = ins.data!.id as string;
    const kids = await Promise.all([
      a.sb.from('case_articles').insert([{ case_id: id, article_number: '1357', article_reference: 'Art. 1357 C.civ.' }]),
      a.sb.from('case_analysis_steps').insert([{ case_id: id, step_number: 1, step_description: 'Pas' }]),
      a.sb.from('case_hints').insert([{ case_id: id, hint_number: 1, hint_text: 'Indiciu' }]),
    ]);
    for (const k of kids) expect(k.error).toBeNull();
    const dup = await a.sb.from('cases').insert({ case_code: c, title: `Caz 5: Dublură ${run}`, domain: 'civil' });
    expect(dup.error?.code).toBe('23505');
    expect(dup.status).toBe(409);
  });
});

describe('conversations, submissions and feedback (spec 7)', () => {
  test('a conversation: insert, latest by user and case, update; invisible to another student', async () => {
    const ins = await a.sb
      .from('chat_conversations')
      .insert({ user_id: a.id, case_id: caseId, conversation_data: [{ role: 'user', content: 'Salut' }], message_count: 1 })
      .select('id')
      .single();
    expect(ins.error).toBeNull();
    const latest = await a.sb
      .from('chat_conversations')
      .select('id, conversation_data')
      .eq('user_id', a.id)
      .eq('case_id', caseId)
      .order('last_message_at', { ascending: false })
      .limit(1);
    expect(latest.data![0].id).toBe(ins.data!.id);
    const upd = await a.sb
      .from('chat_conversations')
      .update({ conversation_data: [{ role: 'user', content: 'Salut' }, { role: 'assistant', content: 'Bună' }], message_count: 2, last_message_at: new Date().toISOString() })
      .eq('id', ins.data!.id)
      .select('message_count')
      .single();
    expect(upd.data).toEqual({ message_count: 2 });
    const peek = await b.sb.from('chat_conversations').select('id').or(`id.eq.${ins.data!.id},user_id.eq.${a.id}`);
    expect(peek.data).toEqual([]);
    const joined = await a.sb
      .from('chat_conversations')
      .select('id, case_id, message_count, cases(case_code, title)')
      .eq('user_id', a.id)
      .order('last_message_at', { ascending: false });
    expect(joined.data![0].cases).toMatchObject({ case_code: caseCode });
  });

  test('a submission returning id; progress queries see only the caller', async () => {
    const ins = await a.sb
      .from('case_submissions')
      .insert({ user_id: a.id, case_id: caseId, submission_text: 'Soluția mea', difficulty_rating: 3, status: 'submitted' })
      .select('id')
      .single();
    expect(ins.error).toBeNull();
    const mine = await a.sb
      .from('case_submissions')
      .select('case_id, score_value, submitted_at, cases(id, case_code, title)')
      .eq('user_id', a.id)
      .order('submitted_at', { ascending: false });
    expect(mine.data!.some((s) => (s.cases as unknown as { case_code: string } | null)?.case_code === caseCode)).toBe(true);
    const details = await a.sb.from('submissions_with_details').select('*').eq('user_id', a.id).order('submitted_at', { ascending: false });
    expect(details.error).toBeNull();
    expect(details.data!.length).toBeGreaterThan(0);
    const theirs = await b.sb.from('submissions_with_details').select('*').eq('user_id', a.id);
    expect(theirs.data).toEqual([]);
  });

  test('feedback from a visitor and from a student; own feedback by user_id', async () => {
    const anon = await anonClient().from('feedback').insert({ user_id: null, email: null, body: `Anonim ${run}` });
    expect(anon.error).toBeNull();
    const own = await a.sb.from('feedback').insert({ user_id: a.id, email: null, body: `Părere ${run}` }).select().single();
    expect(own.error).toBeNull();
    expect(own.data!.body).toBe(`Părere ${run}`);
    const list = await a.sb.from('feedback').select('*').eq('user_id', a.id).order('created_at', { ascending: false });
    expect(list.data!.map((f) => f.body)).toContain(`Părere ${run}`);
  });
});

describe('ordering by an embedded column and embed presence in logic trees (PostgREST v11+)', () => {
  test('order=cases(week_number) orders articles by their case; or=() tests an embed', async () => {
    const late = await seed('cases', { case_code: code(), title: `Caz 12: Târziu ${run}`, level: 'Mediu', week_number: 12, domain: 'civil', verified: true });
    const early = await seed('cases', { case_code: code(), title: `Caz 3: Devreme ${run}`, level: 'Mediu', week_number: 3, domain: 'civil', verified: true });
    await seed('case_articles', { case_id: early, article_number: '9002', article_reference: 'Art. 9002' });
    await seed('case_articles', { case_id: late, article_number: '9001', article_reference: 'Art. 9001' });
    const desc = await a.sb
      .from('case_articles')
      .select('article_number, cases(week_number)')
      .in('case_id', [late, early])
      .order('cases(week_number)', { ascending: false, nullsFirst: false });
    expect(desc.error).toBeNull();
    expect(desc.data!.map((r) => r.article_number)).toEqual(['9001', '9002']);
    const asc = await a.sb.from('case_articles').select('article_number, c:cases(week_number)').in('case_id', [late, early]).order('c(week_number)');
    expect(asc.data!.map((r) => r.article_number)).toEqual(['9002', '9001']);
    const notEmbedded = await a.sb.from('case_articles').select('article_number').in('case_id', [late, early]).order('cases(week_number)');
    expect(notEmbedded.error?.code).toBe('PGRST108');

    // Cases of this run that have articles, or are penal (the penal one has none).
    const withArts = await a.sb
      .from('cases')
      .select('domain, week_number, case_articles(id)')
      .ilike('title', `%${run}`)
      .in('week_number', [3, 11, 12])
      .or('case_articles.not.is.null,domain.eq.penal')
      .order('week_number')
      .order('domain');
    expect(withArts.error).toBeNull();
    expect(withArts.data!.map((c) => `${c.domain}/${c.week_number}/${c.case_articles.length}`)).toEqual(['civil/3/1', 'civil/11/2', 'penal/11/0', 'civil/12/1']);
  });
});

describe('PostgREST errors as supabase-js shows them', () => {
  test('unknown column, relation, bad filter value and anonymous reads', async () => {
    const col = await a.sb.from('cases').select('nope');
    expect(col.error?.code).toBe('42703');
    expect(col.status).toBe(400);
    const rel = await a.sb.from('nope' as 'cases').select('*');
    expect(rel.error?.code).toBe('PGRST205');
    expect(rel.status).toBe(404);
    const val = await a.sb.from('cases').select('id').eq('week_number', 'abc');
    expect(val.error?.code).toBe('22P02');
    const emb = await a.sb.from('cases').select('id, nope(*)');
    expect(emb.error?.code).toBe('PGRST200');
    const anonRead = await anonClient().from('cases').select('id');
    expect(anonRead.error?.code).toBe('42501');
    expect(anonRead.status).toBe(401);
  });

  test('upsert with on_conflict through the service role, rolled back when asked', async () => {
    const up = await service
      .from('cases')
      .upsert({ case_code: caseCode, title: `Caz 11: Titlu nou ${run}`, domain: 'civil' }, { onConflict: 'case_code' })
      .select('title')
      .single();
    expect(up.error).toBeNull();
    expect(up.data!.title).toBe(`Caz 11: Titlu nou ${run}`);
    const ign = await service
      .from('cases')
      .upsert({ case_code: caseCode, title: 'ignored', domain: 'civil' }, { onConflict: 'case_code', ignoreDuplicates: true })
      .select('id');
    expect(ign.data).toEqual([]);
  });
});
