// Realtime private channels with the stock supabase-js, on the core alone (CASUS_APP=none):
// realtime.messages RLS policies (fixture/300_realtime_private.sql) decide who joins, reads
// and sends; messages from SQL (realtime.send, broadcast_changes) reach only authorised
// subscribers; httpSend works on public topics with the anon key and on private ones under
// RLS; a table added to the publication by DDL is streamed without a restart.
import { execFileSync } from 'node:child_process';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;
const dbURL = process.env.DATABASE_URL!;

const options = { auth: { persistSession: false, autoRefreshToken: false } };
const admin = createClient(url, serviceKey, options);
const clients: SupabaseClient[] = [];

async function user(tag: string): Promise<{ sb: SupabaseClient; id: string }> {
  const email = `rtp-${tag}-${Date.now()}@example.com`;
  const { data, error } = await admin.auth.admin.createUser({ email, password: 'a-safe-password', email_confirm: true });
  if (error) throw error;
  const sb = createClient(url, anonKey, options);
  const { error: e2 } = await sb.auth.signInWithPassword({ email, password: 'a-safe-password' });
  if (e2) throw e2;
  await sb.realtime.setAuth();
  clients.push(sb);
  return { sb, id: data.user!.id };
}

function anon(): SupabaseClient {
  const sb = createClient(url, anonKey, options);
  clients.push(sb);
  return sb;
}

// subscribe resolves with the channel's final status and the error supabase-js reports.
function subscribe(ch: RealtimeChannel): Promise<{ status: string; err?: Error }> {
  return new Promise((resolve) => {
    ch.subscribe((status, err) => {
      if (status !== 'CLOSED') resolve({ status, err });
    });
  });
}

async function joined(ch: RealtimeChannel): Promise<RealtimeChannel> {
  const { status, err } = await subscribe(ch);
  if (status !== 'SUBSCRIBED') throw err ?? new Error(status);
  return ch;
}

type Msg = { event: string; payload: Record<string, unknown>; meta?: Record<string, unknown> };

// listen records every broadcast of a channel (before it subscribes).
function listen(ch: RealtimeChannel): Msg[] {
  const got: Msg[] = [];
  ch.on('broadcast', { event: '*' }, (m) => got.push(m as unknown as Msg));
  return got;
}

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function psql(sql: string): void {
  execFileSync('psql', [dbURL, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: 'inherit' });
}

describe('realtime private channels (realtime.messages RLS)', () => {
  const room = `room-${Date.now()}`;
  // alice reads and sends, carol only reads, bob is no member.
  let alice: { sb: SupabaseClient; id: string };
  let carol: { sb: SupabaseClient; id: string };
  let bob: { sb: SupabaseClient; id: string };

  beforeAll(async () => {
    alice = await user('alice');
    carol = await user('carol');
    bob = await user('bob');
    const { error } = await admin.from('room_members').insert([
      { room, user_id: alice.id, can_send: true },
      { room, user_id: carol.id, can_send: false },
    ]);
    if (error) throw error;
  });

  afterAll(async () => {
    for (const sb of clients) await sb.removeAllChannels();
  });

  test('a member joins; a stranger is refused with Realtime’s error', async () => {
    await joined(alice.sb.channel(room, { config: { private: true } }));
    const bobCh = bob.sb.channel(room, { config: { private: true } });
    const { status, err } = await subscribe(bobCh);
    await bob.sb.removeChannel(bobCh); // an errored channel would keep rejoining
    expect(status).toBe('CHANNEL_ERROR');
    expect(err?.message).toBe(`Unauthorized: You do not have permissions to read from this Channel topic: ${room}`);
    const nobody = anon();
    const anonCh = nobody.channel(room, { config: { private: true } });
    const viaAnon = await subscribe(anonCh);
    await nobody.removeChannel(anonCh);
    expect(viaAnon.status).toBe('CHANNEL_ERROR');
  });

  test('send needs the insert policy: a reader’s broadcast is never acknowledged nor delivered', async () => {
    const topic = `${room}-send`;
    await admin.from('room_members').insert([
      { room: topic, user_id: alice.id, can_send: true },
      { room: topic, user_id: carol.id, can_send: false },
    ]);
    const aliceCh = alice.sb.channel(topic, { config: { private: true } });
    const heard = listen(aliceCh);
    await joined(aliceCh);
    const carolCh = carol.sb.channel(topic, { config: { private: true, broadcast: { ack: true } } });
    const carolHeard = listen(carolCh);
    await joined(carolCh);
    const refused = await carolCh.send({ type: 'broadcast', event: 'forbidden', payload: { n: 0 } }, { timeout: 1500 });
    expect(refused).toBe('timed out');
    // A later message from SQL is the first thing alice hears: the refused one never came.
    const { error } = await admin.rpc('announce', { room: topic, message: 'după' });
    expect(error).toBeNull();
    await until(() => heard.length > 0, 'the announcement');
    expect(heard[0].event).toBe('announce');
    expect(heard[0].payload.text).toBe('după');

    // The member who may send is heard by the reader.
    const sent = await aliceCh.send({ type: 'broadcast', event: 'salut', payload: { n: 1 } });
    expect(sent).toBe('ok');
    await until(() => carolHeard.some((m) => m.event === 'salut'), 'alice’s broadcast');
    expect(carolHeard.map((m) => m.event)).toEqual(['announce', 'salut']);
  });

  test('realtime.send and broadcast_changes from SQL reach authorised subscribers only', async () => {
    const topic = `${room}-sql`;
    await admin.from('room_members').insert([
      { room: topic, user_id: alice.id, can_send: true },
      { room: topic, user_id: carol.id, can_send: false },
    ]);
    const aliceCh = alice.sb.channel(topic, { config: { private: true } });
    const aliceHeard = listen(aliceCh);
    await joined(aliceCh);
    // The public channel of the same name is another topic: it hears nothing private.
    const publicCh = anon().channel(topic);
    const publicHeard = listen(publicCh);
    await joined(publicCh);

    // carol (a member) writes a post through the data API; its trigger broadcasts it.
    const { error } = await carol.sb.from('room_posts').insert({ room: topic, body: 'prima postare' });
    expect(error).toBeNull();
    await until(() => aliceHeard.some((m) => m.event === 'INSERT'), 'the post');
    const post = aliceHeard.find((m) => m.event === 'INSERT')!;
    expect(post.payload.operation).toBe('INSERT');
    expect(post.payload.table).toBe('room_posts');
    expect((post.payload.record as { body: string }).body).toBe('prima postare');
    expect(post.meta?.id).toBeTruthy();

    await admin.rpc('announce', { room: topic, message: 'anunț' });
    await until(() => aliceHeard.some((m) => m.event === 'announce'), 'the announcement');

    // The public channel's first message is a public httpSend made after both.
    const sender = anon().channel(topic);
    await expect(sender.httpSend('public', { ok: true })).resolves.toEqual({ success: true });
    await until(() => publicHeard.length > 0, 'the public message');
    expect(publicHeard.map((m) => m.event)).toEqual(['public']);
  });

  test('httpSend: public with the anon key, private under RLS', async () => {
    const topic = `${room}-rest`;
    await admin.from('room_members').insert([
      { room: topic, user_id: alice.id, can_send: true },
      { room: topic, user_id: carol.id, can_send: false },
    ]);
    const carolCh = carol.sb.channel(topic, { config: { private: true } });
    const heard = listen(carolCh);
    await joined(carolCh);

    await expect(alice.sb.channel(topic, { config: { private: true } }).httpSend('rest', { n: 1 })).resolves.toEqual({
      success: true,
    });
    await until(() => heard.length > 0, 'the private httpSend');
    expect(heard[0]).toMatchObject({ event: 'rest', payload: { n: 1 } });

    await expect(carol.sb.channel(topic, { config: { private: true } }).httpSend('rest', { n: 2 })).rejects.toThrow(
      'Unauthorized',
    );
    await expect(bob.sb.channel(topic, { config: { private: true } }).httpSend('rest', { n: 3 })).rejects.toThrow(
      'Unauthorized',
    );
    await expect(anon().channel(topic, { config: { private: true } }).httpSend('rest', { n: 4 })).rejects.toThrow(
      'Unauthorized',
    );
  });

  test('presence: tracking needs the insert policy, readers see the members who may', async () => {
    const topic = `${room}-presence`;
    await admin.from('room_members').insert([
      { room: topic, user_id: alice.id, can_send: true },
      { room: topic, user_id: carol.id, can_send: false },
    ]);
    const carolCh = carol.sb.channel(topic, { config: { private: true, presence: { key: 'carol' } } });
    carolCh.on('presence', { event: 'sync' }, () => {});
    await joined(carolCh);
    expect(await carolCh.track({ online: true })).toBe('error');
    const aliceCh = alice.sb.channel(topic, { config: { private: true, presence: { key: 'alice' } } });
    aliceCh.on('presence', { event: 'sync' }, () => {});
    await joined(aliceCh);
    expect(await aliceCh.track({ online: true })).toBe('ok');
    await until(() => 'alice' in carolCh.presenceState(), 'alice’s presence');
    expect(Object.keys(carolCh.presenceState())).toEqual(['alice']);
  });

  test('replay hands a joining private channel the recent messages', async () => {
    const since = Date.now() - 60_000;
    const ch = carol.sb.channel(`${room}-sql`, {
      config: { private: true, broadcast: { replay: { since, limit: 1 } } },
    });
    const heard = listen(ch);
    await joined(ch);
    await until(() => heard.length > 0, 'the replay');
    expect(heard[0].event).toBe('announce');
    expect(heard[0].meta?.replayed).toBe(true);
  });
});

describe('new tables', () => {
  test('a table added to supabase_realtime by DDL is streamed without a restart', async () => {
    const table = `late_${Date.now()}`;
    psql(`create table public.${table} (id int primary key, note text);
          alter publication supabase_realtime add table public.${table};`);
    const sb = anon();
    const changes: Array<{ new: { note?: string } }> = [];
    // The server learns the table from the publication's notification: retry until joined.
    for (let start = Date.now(); ; ) {
      const ch = sb
        .channel(`late-${Date.now()}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table }, (p) =>
          changes.push(p as unknown as { new: { note?: string } }),
        );
      const { status } = await subscribe(ch);
      if (status === 'SUBSCRIBED') break;
      await sb.removeChannel(ch);
      if (Date.now() - start > 10_000) throw new Error(`${table} never became subscribable`);
    }
    psql(`insert into public.${table} values (1, 'nou')`);
    await until(() => changes.length > 0, 'the change');
    expect(changes[0].new.note).toBe('nou');
  });
});
