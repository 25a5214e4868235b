import { useEffect, useState } from 'react';
import { hasSession, loadTree, type TreeData } from '../api/cases';

// The case tree is requested as soon as this chunk is evaluated, not after the first
// render; the first mount takes that answer. The chunk is also fetched ahead for a
// visitor opening /dashboard signed out, who is sent to /login: without a session
// nothing is asked (walkthrough 3, bug 25), and the first mount loads it itself.
type Load = { promise: Promise<TreeData>; data: TreeData | null; failed: boolean };
let prefetch: Load | null = null;
function startTreeLoad(gate?: Promise<boolean>) {
  const p: Load = { promise: gate ? gate.then((signedIn) => (signedIn ? loadTree() : Promise.reject(new Error('signed out')))) : loadTree(), data: null, failed: false };
  p.promise.then((t) => (p.data = t)).catch(() => (p.failed = true));
  return p;
}
try {
  prefetch = startTreeLoad(hasSession());
} catch {
  prefetch = null; // no client yet (unit tests)
}
function takeTreeLoad() {
  const p = prefetch && !prefetch.failed ? prefetch : startTreeLoad();
  prefetch = null;
  return p;
}

// The dashboard's case tree: null until loaded; ready settles with it (for what the page
// does once the tree is there, e.g. opening a linked case).
export function useCaseTree(): { tree: TreeData | null; ready: Promise<TreeData> } {
  const [load] = useState(takeTreeLoad);
  const [tree, setTree] = useState<TreeData | null>(() => load.data);
  useEffect(() => {
    performance.mark('casus:dashboard-start');
    load.promise
      .then((t) => {
        setTree(t);
        performance.mark('casus:case-list');
      })
      .catch((e) => console.error('tree load failed', e));
  }, [load]);
  return { tree, ready: load.promise };
}
