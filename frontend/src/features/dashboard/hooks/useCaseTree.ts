import { useEffect } from 'react';
import { fetchQuery, prefetchQuery, useQuery, type Query } from '../../../lib/query';
import { hasSession, loadTree, type TreeData } from '../api/cases';

const TREE = ['case-tree'] as const;

// The case tree is requested as soon as this chunk is evaluated (and the app's first paint
// is on screen, lib/firstPaint), not after the dashboard's first render; the first mount
// takes that load. The chunk is also fetched ahead for a visitor
// opening /dashboard signed out, who is sent to /login: without a session nothing is
// asked (walkthrough 3, bug 25), and the first mount loads it itself.
try {
  void hasSession()
    .then((signedIn) => {
      if (signedIn) void prefetchQuery(TREE, loadTree);
    })
    .catch(() => undefined);
} catch {
  // no client yet (unit tests)
}
const ready = () => fetchQuery(TREE, loadTree);

// The dashboard's case tree; ready settles with it (for what the page does once the tree is
// there, e.g. opening a linked case).
export function useCaseTree(): { tree: Query<TreeData>; ready: () => Promise<TreeData> } {
  const tree = useQuery(TREE, loadTree);
  useEffect(() => {
    performance.mark('casus:dashboard-start');
  }, []);
  const loaded = tree.data !== undefined;
  useEffect(() => {
    if (loaded) performance.mark('casus:case-list');
  }, [loaded]);
  useEffect(() => {
    if (tree.status === 'error') console.error('tree load failed', tree.error);
  }, [tree.status, tree.error]);
  return { tree, ready };
}
