// Realtime contract: the stock supabase-js client against our /realtime/v1/websocket,
// with writes going through /rest/v1 under RLS. Run by `make test/contract`.
import { createClient, postgresChangesFilter, type SupabaseClient, type RealtimeChannel } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;

function client(): SupabaseClient {
  return createClient(url, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
  });
}

const admin = createClient(url, serviceKey, {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
});

async function student(tag: string): Promise<{ sb: SupabaseClient; id: string }> {
  const email = `rt-${tag}-${Date.now()}@example.ro`;
  const { data, error } = await admin.auth.admin.createUser({ email, password: 'parola-sigura', email_confirm: true });
  if (error) throw error;
  const sb = client();
  const { error: e2 } = await sb.auth.signInWithPassword({ email, password: 'parola-sigura' });
  if (e2) throw e2;
  await sb.realtime.setAuth();
  return { sb, id: data.user!.id };
}

function subscribed(ch: RealtimeChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    ch.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    });
  });
}

function waitFor<T>(list: T[], n: number, ms = 5000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (list.length >= n) resolve();
      else if (Date.now() - start > ms) reject(new Error(`got ${list.length} of ${n} events`));
      else setTimeout(tick, 25);
    };
    tick();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('realtime with supabase-js', () => {
  let a: { sb: SupabaseClient; id: string };
  let b: { sb: SupabaseClient; id: string };
  let caseId: string;

  beforeAll(async () => {
    a = await student('a');
    b = await student('b');
    const code = `RTC${Date.now() % 100000}`;
    const { data, error } = await admin
      .from('cases')
      .insert({ case_code: code, title: 'Caz 1: Realtime', level: 'Mediu', week_number: 1, domain: 'civil', verified: true })
      .select('id')
      .single();
    if (error) throw error;
    caseId = data.id;
  });

  afterAll(async () => {
    await a.sb.removeAllChannels();
    await b.sb.removeAllChannels();
    await admin.removeAllChannels();
  });

  test('postgres_changes: each student receives only their own submissions', async () => {
    const gotA: Record<string, unknown>[] = [];
    const gotB: Record<string, unknown>[] = [];
    const chA = a.sb
      .channel('subs-a')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'case_submissions' }, (p) => gotA.push(p as never));
    const chB = b.sb
      .channel('subs-b')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'case_submissions', filter: `user_id=eq.${b.id}` }, (p) =>
        gotB.push(p as never),
      );
    await subscribed(chA);
    await subscribed(chB);

    const { data: subA, error } = await a.sb
      .from('case_submissions')
      .insert({ case_id: caseId, submission_text: 'Soluția lui A', difficulty_rating: 3 })
      .select('id')
      .single();
    expect(error).toBeNull();
    await b.sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'Soluția lui B', difficulty_rating: 5 });

    await waitFor(gotA, 1);
    await waitFor(gotB, 1);
    await sleep(300);
    expect(gotA).toHaveLength(1);
    expect(gotB).toHaveLength(1);
    const evA = gotA[0] as { eventType: string; table: string; new: { id: string; submission_text: string; difficulty_rating: number } };
    expect(evA.eventType).toBe('INSERT');
    expect(evA.table).toBe('case_submissions');
    expect(evA.new.id).toBe(subA!.id);
    expect(evA.new.difficulty_rating).toBe(3);
    expect((gotB[0] as { new: { submission_text: string } }).new.submission_text).toBe('Soluția lui B');

    // The grade lands (written by the privileged path) and A sees the update live.
    const { error: gradeErr } = await admin
      .from('case_submissions')
      .update({ status: 'graded', score: '82/100', score_value: 82, feedback_text: 'Bine', feedback_at: new Date().toISOString() })
      .eq('id', subA!.id);
    expect(gradeErr).toBeNull();
    await waitFor(gotA, 2);
    const upd = gotA[1] as { eventType: string; new: { score: string; status: string }; old: { id: string } };
    expect(upd.eventType).toBe('UPDATE');
    expect(upd.new.score).toBe('82/100');
    expect(upd.new.status).toBe('graded');
    expect(upd.old.id).toBe(subA!.id);
    await sleep(300);
    expect(gotB).toHaveLength(1);
  });

  test('broadcast between two clients, with and without self', async () => {
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    const chA = a.sb.channel('room-1', { config: { broadcast: { self: false, ack: true } } }).on('broadcast', { event: 'cursor' }, (p) => heardA.push(p));
    const chB = b.sb.channel('room-1', { config: { broadcast: { self: true } } }).on('broadcast', { event: 'cursor' }, (p) => heardB.push(p));
    await subscribed(chA);
    await subscribed(chB);
    const status = await chA.send({ type: 'broadcast', event: 'cursor', payload: { x: 10, y: 20 } });
    expect(status).toBe('ok');
    await chB.send({ type: 'broadcast', event: 'cursor', payload: { x: 1 } });
    await waitFor(heardB, 2);
    await waitFor(heardA, 1);
    await sleep(200);
    expect(heardA).toHaveLength(1); // not its own
    expect(heardA[0]).toMatchObject({ event: 'cursor', payload: { x: 1 } });
    expect(heardB).toHaveLength(2); // its own too
    expect(heardB[0]).toMatchObject({ type: 'broadcast', event: 'cursor', payload: { x: 10, y: 20 } });
  });

  test('presence: track, sync, leave', async () => {
    const chA = a.sb.channel('case:presence', { config: { presence: { key: 'a' } } });
    const chB = b.sb.channel('case:presence', { config: { presence: { key: 'b' } } });
    let syncs = 0;
    const leaves: string[] = [];
    chB.on('presence', { event: 'sync' }, () => syncs++).on('presence', { event: 'leave' }, ({ key }) => leaves.push(key));
    await subscribed(chA);
    await subscribed(chB);
    expect(await chA.track({ studying: true })).toBe('ok');
    expect(await chB.track({ studying: true })).toBe('ok');
    const start = Date.now();
    while (Object.keys(chB.presenceState()).length < 2 && Date.now() - start < 5000) await sleep(25);
    expect(Object.keys(chB.presenceState()).sort()).toEqual(['a', 'b']);
    expect(chB.presenceState().a[0]).toMatchObject({ studying: true });
    expect(syncs).toBeGreaterThan(0);
    await chA.untrack();
    await waitFor(leaves, 1);
    expect(leaves).toContain('a');
    expect(Object.keys(chB.presenceState())).toEqual(['b']);
  });

  test('deletes reach only those who could read the row; filters cannot probe others\' rows', async () => {
    // B probes A's conversations by owner and by content, the way issue #21 found them.
    const heardB: { old: { id: string } }[] = [];
    const heardA: { old: Record<string, unknown> }[] = [];
    const probe = b.sb
      .channel('probe')
      .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'chat_conversations', filter: `user_id=eq.${a.id}` }, (p) => heardB.push(p as never))
      .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'chat_conversations' }, (p) => heardB.push(p as never));
    const own = a.sb
      .channel('own-convs')
      .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'chat_conversations', filter: `user_id=eq.${a.id}` }, (p) => heardA.push(p as never));
    await subscribed(probe);
    await subscribed(own);
    const convA = await a.sb.from('chat_conversations').insert({ case_id: caseId, conversation_data: [{ role: 'user', content: 'secret' }] }).select('id').single();
    const convB = await b.sb.from('chat_conversations').insert({ case_id: caseId }).select('id').single();
    expect(convA.error).toBeNull();
    expect(convB.error).toBeNull();
    expect((await a.sb.from('chat_conversations').delete().eq('id', convA.data!.id)).error).toBeNull();
    expect((await b.sb.from('chat_conversations').delete().eq('id', convB.data!.id)).error).toBeNull();
    // B's own delete comes after A's: when it has arrived, A's would have too.
    await waitFor(heardB, 1);
    await waitFor(heardA, 1);
    expect(heardB.map((e) => e.old.id)).toEqual([convB.data!.id]);
    // A hears its own delete through its filter, with the primary key only (as Supabase with RLS).
    expect(heardA[0].old).toEqual({ id: convA.data!.id });
  });

  test('limits answer in Supabase Realtime\'s shapes', async () => {
    const sb = client();
    // A broadcast over the payload limit is refused when acknowledged.
    const ch = sb.channel('limits', { config: { broadcast: { ack: true } } });
    await subscribed(ch);
    expect(await ch.send({ type: 'broadcast', event: 'blob', payload: { b: 'x'.repeat(300 * 1024) } })).toBe('error');
    expect(await ch.send({ type: 'broadcast', event: 'small', payload: {} })).toBe('ok');
    // The 101st channel of one socket is refused with Realtime's reason.
    for (let i = 1; i < 100; i++) await subscribed(sb.channel(`many-${i}`));
    const extra = sb.channel('one-too-many');
    await expect(subscribed(extra)).rejects.toThrow('ChannelRateLimitReached: Too many channels');
    await sb.removeAllChannels();
  });

  test('combined filters: nothing outside the filter ever arrives', async () => {
    type Ev = { new: { difficulty_rating: number; submission_text: string } };
    const range: Ev[] = [];
    const picked: Ev[] = [];
    const marker: Ev[] = [];
    // 'user_id=eq.…,difficulty_rating=gte.2,difficulty_rating=lte.4': ANDed, as Supabase reads it.
    const chRange = a.sb.channel('range').on(
      'postgres_changes',
      {
        event: 'INSERT',
        schema: 'public',
        table: 'case_submissions',
        filter: postgresChangesFilter().eq('user_id', a.id).gte('difficulty_rating', 2).lte('difficulty_rating', 4),
      },
      (p) => range.push(p as never),
    );
    const chPicked = a.sb.channel('picked').on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'case_submissions', filter: 'difficulty_rating=not.in.(1,3),submission_text=ilike.%important%' },
      (p) => picked.push(p as never),
    );
    const chMarker = a.sb.channel('marker').on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'case_submissions', filter: 'submission_text=eq."marker, with a comma"' },
      (p) => marker.push(p as never),
    );
    await subscribed(chRange);
    await subscribed(chPicked);
    await subscribed(chMarker);
    const rows = [
      [1, 'unu'],
      [5, 'cinci IMPORTANT'],
      [3, 'trei important'],
      [5, 'cinci'],
      [1, 'unu important'],
      [3, 'trei'],
    ] as const;
    for (const [difficulty_rating, submission_text] of rows) {
      const { error } = await a.sb.from('case_submissions').insert({ case_id: caseId, submission_text, difficulty_rating });
      expect(error).toBeNull();
    }
    await a.sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'marker, with a comma', difficulty_rating: 5 });
    // Changes are dispatched in commit order: once the marker is in, every earlier row was decided.
    await waitFor(marker, 1);
    await waitFor(range, 2);
    expect(range.map((e) => e.new.submission_text)).toEqual(['trei important', 'trei']);
    expect(picked.map((e) => e.new.submission_text)).toEqual(['cinci IMPORTANT']);
    expect(marker).toHaveLength(1);
  });

  test('a filter Realtime refuses is reported as Supabase reports it', async () => {
    const system: { status: string; message: string; extension: string }[] = [];
    const got: unknown[] = [];
    const ch = a.sb
      .channel('refused')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'case_submissions', filter: 'difficulty_rating=foo.1' }, (p) => got.push(p))
      .on('system', {}, (p) => system.push(p as never));
    await subscribed(ch);
    await waitFor(system, 1);
    expect(system[0]).toMatchObject({ status: 'error', extension: 'postgres_changes', message: 'Error parsing `filter` params: ["foo", "1"]' });
    const bad = a.sb
      .channel('refused-type')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'case_submissions', filter: 'difficulty_rating=eq.abc' }, (p) => got.push(p))
      .on('system', {}, (p) => system.push(p as never));
    await subscribed(bad);
    await waitFor(system, 2);
    expect(system[1].status).toBe('error');
    expect(system[1].message).toContain('invalid input syntax for type integer: "abc"');
    // Neither channel receives changes.
    const marker: unknown[] = [];
    const chMarker = a.sb
      .channel('refused-marker')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'case_submissions', filter: `user_id=eq.${a.id}` }, (p) => marker.push(p));
    await subscribed(chMarker);
    await a.sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'după refuz', difficulty_rating: 1 });
    await waitFor(marker, 1);
    expect(got).toHaveLength(0);
  });

  test('httpSend: the anon key broadcasts to a public topic; a user topic stays its owner\'s', async () => {
    const heard: { event: string; payload: Record<string, unknown> }[] = [];
    const listener = b.sb.channel('http-room').on('broadcast', { event: '*' }, (p) => heard.push(p as never));
    await subscribed(listener);
    const anon = client();
    await expect(anon.channel('http-room').httpSend('ping', { n: 1, text: 'ș' })).resolves.toEqual({ success: true });
    await waitFor(heard, 1);
    expect(heard[0]).toMatchObject({ event: 'ping', payload: { n: 1, text: 'ș' } });

    const own = `progress-${a.id}`;
    const ownHeard: { event: string }[] = [];
    const ownCh = a.sb.channel(own).on('broadcast', { event: '*' }, (p) => ownHeard.push(p as never));
    await subscribed(ownCh);
    await expect(b.sb.channel(own).httpSend('forged', { grade: '100/100' })).rejects.toThrow('Unauthorized');
    await expect(anon.channel(own).httpSend('forged', {})).rejects.toThrow('Unauthorized');
    await expect(anon.channel('http-private', { config: { private: true } }).httpSend('x', {})).rejects.toThrow('Unauthorized');
    await expect(a.sb.channel(own).httpSend('mine', { ok: true })).resolves.toEqual({ success: true });
    await waitFor(ownHeard, 1);
    expect(ownHeard.map((e) => e.event)).toEqual(['mine']);
    await anon.removeAllChannels();
  });

  test('select: only the chosen columns and the primary key arrive', async () => {
    const got: { new: Record<string, unknown> }[] = [];
    const ch = a.sb
      .channel('select')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'case_submissions', filter: `user_id=eq.${a.id}`, select: ['submission_text', 'difficulty_rating'] },
        (p) => got.push(p as never),
      );
    await subscribed(ch);
    const { data, error } = await a.sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'doar unele coloane', difficulty_rating: 5 }).select('id').single();
    expect(error).toBeNull();
    await waitFor(got, 1);
    expect(got[0].new).toEqual({ id: data!.id, submission_text: 'doar unele coloane', difficulty_rating: 5 });
  });

  test('anonymous visitors receive no submission changes', async () => {
    const anon = client();
    const got: unknown[] = [];
    const ch = anon.channel('anon-subs').on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'case_submissions' }, (p) => got.push(p));
    await subscribed(ch);
    await a.sb.from('case_submissions').insert({ case_id: caseId, submission_text: 'Încă o soluție', difficulty_rating: 1 });
    await sleep(800);
    expect(got).toHaveLength(0);
    await anon.removeAllChannels();
  });
});
