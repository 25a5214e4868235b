// The app's first paint goes before its data requests (issue 31). A signed-in student
// opening /dashboard sees the page at once from what this device holds (the session, the
// stored profile, the cached chunks); the requests for what fills it (the case tree, the
// bell, the profile read again) start once that first paint is on screen, instead of
// competing with it for the main thread and, on a slow phone, the network. main.tsx holds
// them back until its first render is painted; the gate is open otherwise (tests, tools).
const OPEN = Promise.resolve();
let gate: Promise<void> = OPEN;
let open: (() => void) | null = null;

// What a request waits for: resolved once the first contentful paint was presented. Held
// requests then go each in a task of its own, not all in one long task.
export const afterFirstPaint = (): Promise<void> => (gate === OPEN ? OPEN : gate.then(() => new Promise<void>((r) => setTimeout(r, 0))));

// Holds requests from now until the page's first contentful paint.
export function holdUntilFirstPaint(): void {
  gate = new Promise<void>((resolve) => {
    let observer: PerformanceObserver | null = null;
    open = () => {
      observer?.disconnect();
      open = null;
      gate = OPEN;
      resolve();
    };
    try {
      observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) open?.();
      });
      observer.observe({ type: 'paint', buffered: true });
    } catch {
      // no paint timing: the fallback below opens the gate
    }
  });
}

// After the first render: the requests go at the latest maxWait ms later (a browser without
// paint timing, a hidden tab that does not paint).
export function releaseAfterFirstPaint(maxWait = 500): void {
  const o = open;
  if (o) setTimeout(o, maxWait);
}
