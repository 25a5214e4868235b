// Build-time stand-in for @supabase/realtime-js (vite.config.ts aliases it for the web app
// bundle only, like storage-js.ts): supabase-js constructs its RealtimeClient eagerly, which
// put the whole realtime client (about 14 kB gzip) on every page's first load, while a page
// only needs it once it opens a channel (a case's presence, live updates). This client has
// the same surface as far as supabase-js and Casus use it; the real one is loaded on the
// first channel and then does everything: calls made before it is there are replayed on it.
import type * as Real from '@supabase/realtime-js/dist/module/index.js';

type RealClient = InstanceType<typeof Real.RealtimeClient>;
type RealChannel = InstanceType<typeof Real.RealtimeChannel>;

let module: Promise<typeof Real> | null = null;
const load = () => (module ??= import('@supabase/realtime-js/dist/module/index.js'));

export class RealtimeClient {
  private real: RealClient | null = null;
  private ready: Promise<RealClient> | null = null;
  // The last setAuth call (supabase-js passes the session's token, or nothing on sign-out).
  private auth: [string | null | undefined] | null = null;
  private readonly url: string;
  private readonly options: object;
  readonly channels: LazyChannel[] = [];

  constructor(url: string, options: object = {}) {
    this.url = url;
    this.options = options;
  }

  client(): Promise<RealClient> {
    this.ready ??= load().then((m) => {
      const c = new m.RealtimeClient(this.url, this.options);
      if (this.auth) void c.setAuth(this.auth[0]);
      this.real = c;
      return c;
    });
    return this.ready;
  }

  setAuth(token?: string | null): Promise<void> {
    this.auth = [token];
    return this.real ? this.real.setAuth(token) : Promise.resolve();
  }

  channel(topic: string, params?: object): LazyChannel {
    const ch = new LazyChannel(this, topic, params);
    this.channels.push(ch);
    return ch;
  }

  getChannels(): LazyChannel[] {
    return this.channels;
  }

  async removeChannel(ch: LazyChannel): Promise<string> {
    const i = this.channels.indexOf(ch);
    if (i >= 0) this.channels.splice(i, 1);
    return ch.remove();
  }

  async removeAllChannels(): Promise<string[]> {
    const all = this.channels.splice(0);
    const r = await Promise.all(all.map((ch) => ch.remove()));
    await this.real?.disconnect();
    return r;
  }

  async disconnect(): Promise<void> {
    await this.real?.disconnect();
  }
}

// A channel whose calls wait for the real client: on(), subscribe() and track() are
// replayed in order on the real channel; presenceState() reads it (empty until joined).
export class LazyChannel {
  private real: RealChannel | null = null;
  private ops: ((ch: RealChannel) => unknown)[] = [];
  private removed = false;
  readonly topic: string;

  constructor(owner: RealtimeClient, topic: string, params?: object) {
    this.topic = topic;
    void owner.client().then((c) => {
      if (this.removed) return;
      const ch = c.channel(topic, params as never);
      this.real = ch;
      for (const op of this.ops.splice(0)) op(ch);
    });
  }

  private run<T>(op: (ch: RealChannel) => T): Promise<T> {
    if (this.real) return Promise.resolve(op(this.real));
    return new Promise<T>((resolve) => this.ops.push((ch) => resolve(op(ch))));
  }

  on(...args: unknown[]): this {
    void this.run((ch) => (ch.on as (...a: unknown[]) => unknown).apply(ch, args));
    return this;
  }

  subscribe(...args: unknown[]): this {
    void this.run((ch) => (ch.subscribe as (...a: unknown[]) => unknown).apply(ch, args));
    return this;
  }

  presenceState(): object {
    return this.real ? this.real.presenceState() : {};
  }

  track(payload: Record<string, unknown>, opts?: object) {
    return this.run((ch) => ch.track(payload, opts as never));
  }

  untrack(opts?: object) {
    return this.run((ch) => ch.untrack(opts as never));
  }

  send(args: object, opts?: object) {
    return this.run((ch) => ch.send(args as never, opts as never));
  }

  async unsubscribe(timeout?: number) {
    return this.real ? this.real.unsubscribe(timeout) : 'ok';
  }

  // Leaves the channel (or makes sure it is never joined when the client is still loading).
  async remove(): Promise<string> {
    this.removed = true;
    this.ops = [];
    const ch = this.real;
    if (!ch) return 'ok';
    const status = await ch.unsubscribe();
    if (status === 'ok') ch.teardown();
    return status;
  }
}

export class RealtimeChannel extends LazyChannel {}
export const REALTIME_LISTEN_TYPES = { BROADCAST: 'broadcast', PRESENCE: 'presence', POSTGRES_CHANGES: 'postgres_changes', SYSTEM: 'system' } as const;
export const REALTIME_SUBSCRIBE_STATES = { SUBSCRIBED: 'SUBSCRIBED', TIMED_OUT: 'TIMED_OUT', CLOSED: 'CLOSED', CHANNEL_ERROR: 'CHANNEL_ERROR' } as const;
