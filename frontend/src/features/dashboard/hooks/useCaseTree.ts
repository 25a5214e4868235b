import { useEffect, useState } from 'react';
import { loadTree, type TreeData } from '../api/cases';

// The case tree is requested as soon as this chunk is evaluated (the route is protected, so
// a session exists), not after the first render; the first mount takes that answer.
let prefetch: { promise: Promise<TreeData>; data: TreeData | null } | null = null;
function startTreeLoad() {
  const p = { promise: loadTree(), data: null as TreeData | null };
  p.promise.then((t) => (p.data = t)).catch(() => {});
  return p;
}
try {
  prefetch = startTreeLoad();
} catch {
  prefetch = null; // no client yet (unit tests)
}
function takeTreeLoad() {
  const p = prefetch ?? startTreeLoad();
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
