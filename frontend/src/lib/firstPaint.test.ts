import { afterEach, describe, expect, test, vi } from 'vitest';
import { afterFirstPaint, holdUntilFirstPaint, releaseAfterFirstPaint } from './firstPaint';
import { clearQueries, prefetchQuery } from './query';

// A stand-in for the browser's paint timing: the test reports the first contentful paint.
let report: ((names: string[]) => void) | null = null;
class FakeObserver {
  constructor(private cb: (list: { getEntries: () => { name: string }[] }) => void) {}
  observe() {
    report = (names) => this.cb({ getEntries: () => names.map((name) => ({ name })) });
  }
  disconnect() {
    report = null;
  }
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 5));
  return done;
};

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  clearQueries();
});

describe('first paint before data requests (issue 31)', () => {
  test('not held, a request goes at once', async () => {
    expect(await settled(afterFirstPaint())).toBe(true);
  });

  test('held, requests wait for the first contentful paint (not a first paint of the background), then go', async () => {
    vi.stubGlobal('PerformanceObserver', FakeObserver);
    holdUntilFirstPaint();
    const load = vi.fn(async () => 'tree');
    void prefetchQuery(['tree'], load);
    expect(await settled(afterFirstPaint())).toBe(false);
    report!(['first-paint']);
    expect(await settled(afterFirstPaint())).toBe(false);
    expect(load).not.toHaveBeenCalled();
    report!(['first-contentful-paint']);
    await vi.waitFor(() => expect(load).toHaveBeenCalledTimes(1));
    // Open from then on, for good.
    expect(await settled(afterFirstPaint())).toBe(true);
  });

  test('without paint timing (or a hidden tab), the requests go at the latest maxWait ms after the first render', async () => {
    vi.stubGlobal('PerformanceObserver', undefined);
    vi.useFakeTimers();
    holdUntilFirstPaint();
    let done = false;
    void afterFirstPaint().then(() => (done = true));
    releaseAfterFirstPaint(500);
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(true);
  });
});
