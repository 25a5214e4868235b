import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { afterFirstPaint } from './firstPaint';

// The one way the web app loads data: useQuery(key, load) gives what was loaded for that
// key, whether it is loading or failed, and refetch. Answers are cached by key (a page
// opened again shows its last data at once while it reloads), concurrent loads of a key are
// shared, and an answer older than the latest request for its key is dropped, so a late
// reply never overwrites a newer one nor shows under another key (another case, tab or
// query). TanStack Query and SWR do this too but were measured over the /dashboard budget
// of 140 kB gzip (138.1 kB before): TanStack Query 147.9 kB, SWR about 143.5 kB (ARCHITECTURE.md).

export type QueryKey = readonly unknown[];
export type QueryStatus = 'loading' | 'error' | 'ready';

export type QueryState<T> = {
  status: QueryStatus;
  // The last answer for this key; kept while it reloads and when a reload fails.
  data: T | undefined;
  // The failure of the last load, while status is 'error'.
  error: unknown;
  // A request for this key is under way (the first load or a refetch).
  fetching: boolean;
};
export type Query<T> = QueryState<T> & { refetch: () => Promise<void> };

type Entry = {
  state: QueryState<unknown>;
  seq: number;
  inflight: Promise<void> | null;
  listeners: Set<() => void>;
  gc: ReturnType<typeof setTimeout> | null;
};

const LOADING: QueryState<never> = { status: 'loading', data: undefined, error: undefined, fetching: false };
const entries = new Map<string, Entry>();

export const hashKey = (key: QueryKey) => JSON.stringify(key);

function entryOf(hash: string): Entry {
  let e = entries.get(hash);
  if (!e) entries.set(hash, (e = { state: LOADING, seq: 0, inflight: null, listeners: new Set(), gc: null }));
  return e;
}

function update(e: Entry, patch: Partial<QueryState<unknown>>) {
  e.state = { ...e.state, ...patch };
  for (const l of e.listeners) l();
}

// Starts a load of the key, or joins the one under way unless force (a refetch: what is
// loading may predate the change that asked for it). Only the latest request writes.
function load(hash: string, fn: () => Promise<unknown>, force: boolean): Promise<void> {
  const e = entryOf(hash);
  if (e.inflight && !force) return e.inflight;
  const seq = ++e.seq;
  update(e, { fetching: true, ...(e.state.status === 'error' && e.state.data === undefined ? { status: 'loading' as const } : {}) });
  // After the app's first paint (lib/firstPaint: at once but for a page's first render).
  const p = afterFirstPaint()
    .then(fn)
    .then(
      (data) => {
        if (seq === e.seq) update(e, { status: 'ready', data, error: undefined, fetching: false });
      },
      (error: unknown) => {
        if (seq === e.seq) update(e, { status: 'error', error, fetching: false });
      },
    )
    .finally(() => {
      if (e.inflight === p) e.inflight = null;
    });
  e.inflight = p;
  return p;
}

// Starts loading a key before any component asks (the dashboard's case tree as its chunk
// is evaluated); the first useQuery of the key takes that load.
export function prefetchQuery<T>(key: QueryKey, fn: () => Promise<T>): Promise<void> {
  return load(hashKey(key), fn, false);
}

// The data of a key once loaded: the cached answer, else the load under way or a new one.
export async function fetchQuery<T>(key: QueryKey, fn: () => Promise<T>): Promise<T> {
  const hash = hashKey(key);
  const e = entryOf(hash);
  if (e.state.status !== 'ready') await load(hash, fn, false);
  const s = entryOf(hash).state;
  if (s.status === 'error') throw s.error;
  return s.data as T;
}

// Reloads every mounted query whose key starts with prefix (after a write, say); the others
// are dropped, to be loaded afresh when next shown.
export function invalidateQueries(prefix: QueryKey) {
  const p = hashKey(prefix).slice(0, -1);
  for (const [hash, e] of entries) {
    if (!hash.startsWith(p)) continue;
    const fn = loaders.get(hash);
    if (e.listeners.size && fn) void load(hash, fn, true);
    else entries.delete(hash);
  }
}

// Everything cached belongs to the signed-in user: forgotten when the user changes.
export function clearQueries() {
  const all = [...entries.values()];
  entries.clear();
  loaders.clear();
  for (const e of all) {
    e.seq++;
    for (const l of e.listeners) l();
  }
}

// The loader of each mounted key, for invalidateQueries.
const loaders = new Map<string, () => Promise<unknown>>();

function subscribe(hash: string, listener: () => void, gcTime: number) {
  const e = entryOf(hash);
  if (e.gc) clearTimeout(e.gc);
  e.gc = null;
  e.listeners.add(listener);
  return () => {
    e.listeners.delete(listener);
    if (e.listeners.size || gcTime === Infinity) return;
    // Kept a while for the next mount; a remount right away (StrictMode) keeps it.
    e.gc = setTimeout(() => {
      if (e.listeners.size || entries.get(hash) !== e) return;
      e.seq++;
      entries.delete(hash);
      loaders.delete(hash);
    }, gcTime);
  };
}

export type QueryOptions = {
  // How long an answer no component shows is kept, in ms (0: one-off data such as a new
  // authenticator enrolment, never shown again).
  gcTime?: number;
};

// The state of key's data, loaded with fn on mount and whenever the key changes; a null key
// waits (e.g. for the signed-in user). The key must say everything fn's answer depends on.
export function useQuery<T>(key: QueryKey | null, fn: () => Promise<T>, { gcTime = 5 * 60_000 }: QueryOptions = {}): Query<T> {
  const hash = key ? hashKey(key) : null;
  const fnRef = useRef(fn);
  useEffect(() => {
    fnRef.current = fn;
  });
  const sub = useCallback((l: () => void) => (hash ? subscribe(hash, l, gcTime) : () => {}), [hash, gcTime]);
  const state = useSyncExternalStore(sub, () => (hash ? (entries.get(hash)?.state ?? LOADING) : LOADING)) as QueryState<T>;
  useEffect(() => {
    if (!hash) return;
    const run = () => fnRef.current();
    loaders.set(hash, run);
    void load(hash, run, false);
  }, [hash]);
  const refetch = useCallback(() => (hash ? load(hash, () => fnRef.current(), true) : Promise.resolve()), [hash]);
  return { ...state, refetch };
}
