import { afterEach, describe, expect, test, vi } from 'vitest';

type Handler = (payload: unknown) => void;
const channels: FakeChannel[] = [];
class FakeChannel {
  handlers: { kind: string; filter: Record<string, unknown>; fn: Handler }[] = [];
  status: ((s: string) => void) | null = null;
  tracked: unknown[] = [];
  state: Record<string, unknown[]> = {};
  constructor(public topic: string, public opts?: unknown) {}
  on(kind: string, filter: Record<string, unknown>, fn: Handler) {
    this.handlers.push({ kind, filter, fn });
    return this;
  }
  subscribe(cb: (s: string) => void) {
    this.status = cb;
    return this;
  }
  presenceState() {
    return this.state;
  }
  track(v: unknown) {
    this.tracked.push(v);
    return Promise.resolve('ok');
  }
}
const removed: FakeChannel[] = [];
vi.mock('./supabase', () => ({
  supabase: () => ({
    channel: (topic: string, opts?: unknown) => {
      const c = new FakeChannel(topic, opts);
      channels.push(c);
      return c;
    },
    removeChannel: (c: FakeChannel) => {
      removed.push(c);
      return Promise.resolve('ok');
    },
  }),
}));
const { openChannelCount, watchPresence, watchTables } = await import('./realtime');

afterEach(() => {
  channels.length = 0;
  removed.length = 0;
});

describe('realtime channels', () => {
  test('table changes reach the caller, joining calls onLive, unsubscribing removes the channel once', () => {
    const rows: unknown[] = [];
    const live = vi.fn();
    const stop = watchTables('progress-u1', [{ table: 'case_submissions', filter: 'user_id=eq.u1' }, { table: 'submission_appeals', event: 'UPDATE' }], (r) => rows.push(r), live);
    const [ch] = channels;
    expect(ch.topic).toBe('progress-u1');
    expect(ch.handlers.map((h) => h.filter)).toEqual([
      { event: '*', schema: 'public', table: 'case_submissions', filter: 'user_id=eq.u1' },
      { event: 'UPDATE', schema: 'public', table: 'submission_appeals' },
    ]);
    ch.handlers[1].fn({ new: { id: 'a1' } });
    expect(rows).toEqual([{ id: 'a1' }]);
    ch.status?.('SUBSCRIBED');
    expect(live).toHaveBeenCalledTimes(1);
    expect(openChannelCount()).toBe(1);
    stop();
    stop();
    expect(removed).toEqual([ch]);
    expect(openChannelCount()).toBe(0);
  });

  test('presence counts the other keys only and tracks once joined', () => {
    const counts: number[] = [];
    const stop = watchPresence('case:c1', 'me', (n) => counts.push(n));
    const [ch] = channels;
    expect(ch.opts).toEqual({ config: { presence: { key: 'me' } } });
    ch.state = { me: [{}], other: [{}], third: [{}] };
    ch.handlers[0].fn({});
    expect(counts).toEqual([2]);
    expect(ch.tracked).toHaveLength(0);
    ch.status?.('SUBSCRIBED');
    expect(ch.tracked).toHaveLength(1);
    stop();
    expect(removed).toEqual([ch]);
  });
});
