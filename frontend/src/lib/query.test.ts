import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { clearQueries, fetchQuery, invalidateQueries, prefetchQuery, useQuery } from './query';

// A load the test settles by hand, to order answers as a slow network would.
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

afterEach(() => {
  cleanup();
  clearQueries();
});

describe('useQuery', () => {
  test('loading, then the data; an error, then a refetch that succeeds', async () => {
    let calls = 0;
    const { result } = renderHook(() =>
      useQuery(['q', 1], async () => {
        calls++;
        if (calls === 1) throw new Error('down');
        return 'ok';
      }),
    );
    expect(result.current.status).toBe('loading');
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect((result.current.error as Error).message).toBe('down');
    await act(() => result.current.refetch());
    expect(result.current).toMatchObject({ status: 'ready', data: 'ok', error: undefined, fetching: false });
  });

  test('a late answer for a key left behind is never shown under the new key', async () => {
    const slow = deferred<string>();
    const fast = deferred<string>();
    const loads: Record<string, Promise<string>> = { a: slow.promise, b: fast.promise };
    const { result, rerender } = renderHook(({ id }) => useQuery(['case', id], () => loads[id]), { initialProps: { id: 'a' } });
    rerender({ id: 'b' });
    await act(async () => fast.resolve('B'));
    expect(result.current.data).toBe('B');
    await act(async () => slow.resolve('A'));
    expect(result.current.data).toBe('B');
  });

  test('a refetch overtaken by a later one keeps the later answer', async () => {
    const answers = [deferred<number>(), deferred<number>(), deferred<number>()];
    let n = 0;
    const { result } = renderHook(() => useQuery(['count'], () => answers[n++].promise));
    await act(async () => answers[0].resolve(0));
    let first!: Promise<void>;
    let second!: Promise<void>;
    act(() => {
      first = result.current.refetch();
    });
    act(() => {
      second = result.current.refetch();
    });
    await act(async () => {
      answers[2].resolve(2);
      await second;
    });
    await act(async () => {
      answers[1].resolve(1);
      await first;
    });
    expect(result.current.data).toBe(2);
  });

  test('a reload keeps the last data on screen, and a failed reload keeps it too', async () => {
    let fail = false;
    const { result } = renderHook(() => useQuery(['kept'], async () => (fail ? Promise.reject(new Error('x')) : 'v1')));
    await waitFor(() => expect(result.current.data).toBe('v1'));
    fail = true;
    let p!: Promise<void>;
    act(() => {
      p = result.current.refetch();
    });
    expect(result.current).toMatchObject({ data: 'v1', fetching: true });
    await act(() => p);
    expect(result.current).toMatchObject({ status: 'error', data: 'v1', fetching: false });
  });

  test('components showing the same key share one load and its answer', async () => {
    let calls = 0;
    const fn = async () => ++calls;
    const a = renderHook(() => useQuery(['shared'], fn));
    const b = renderHook(() => useQuery(['shared'], fn));
    await waitFor(() => expect(a.result.current.data).toBe(1));
    expect(b.result.current.data).toBe(1);
    expect(calls).toBe(1);
  });

  test('a remount shows the cached answer at once while it reloads', async () => {
    let calls = 0;
    const fn = async () => `v${++calls}`;
    const first = renderHook(() => useQuery(['cached'], fn));
    await waitFor(() => expect(first.result.current.data).toBe('v1'));
    first.unmount();
    const again = renderHook(() => useQuery(['cached'], fn));
    expect(again.result.current.data).toBe('v1');
    await waitFor(() => expect(again.result.current.data).toBe('v2'));
  });

  test('a null key waits and loads nothing', async () => {
    let calls = 0;
    const { result, rerender } = renderHook(({ user }: { user: string | null }) => useQuery(user ? ['mine', user] : null, async () => ++calls), {
      initialProps: { user: null as string | null },
    });
    expect(result.current).toMatchObject({ status: 'loading', fetching: false });
    expect(calls).toBe(0);
    rerender({ user: 'u1' });
    await waitFor(() => expect(result.current.data).toBe(1));
  });

  test('a prefetched key is taken by the first component, not loaded twice', async () => {
    let calls = 0;
    const fn = async () => ++calls;
    void prefetchQuery(['tree'], fn);
    const { result } = renderHook(() => useQuery(['tree'], fn));
    await waitFor(() => expect(result.current.data).toBe(1));
    expect(calls).toBe(1);
    expect(await fetchQuery(['tree'], fn)).toBe(1);
  });

  test('invalidateQueries reloads the mounted keys under a prefix', async () => {
    let calls = 0;
    const { result } = renderHook(() => useQuery(['progress', 'u1', 'subs'], async () => ++calls));
    await waitFor(() => expect(result.current.data).toBe(1));
    await act(async () => invalidateQueries(['progress', 'u1']));
    await waitFor(() => expect(result.current.data).toBe(2));
  });

  test('clearQueries (another user) drops what was cached and any answer under way', async () => {
    const slow = deferred<string>();
    const { result } = renderHook(() => useQuery(['who'], () => slow.promise));
    clearQueries();
    await act(async () => slow.resolve('previous user'));
    expect(result.current.data).toBeUndefined();
  });
});
