import type { RealtimeChannel } from '@supabase/supabase-js';
import type { Database } from '../types/database';
import { supabase } from './supabase';

// The one owner of realtime channels: every subscription of the app is opened here and
// handed back as an unsubscribe function, so no screen keeps a channel after it unmounts
// and no screen talks to the socket itself.

type TableName = keyof Database['public']['Tables'];
export type TableChange = { table: TableName; event?: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; filter?: string };

const open = new Set<RealtimeChannel>();

function close(ch: RealtimeChannel) {
  if (!open.delete(ch)) return;
  void supabase().removeChannel(ch);
}

// Row changes of one or more tables on one channel. onChange gets the new row (empty for a
// delete); onLive fires each time the channel is joined, so a caller can read again what
// changed before the join.
export function watchTables(
  topic: string,
  changes: TableChange[],
  onChange: (row: Record<string, unknown>) => void,
  onLive?: () => void,
): () => void {
  let ch = supabase().channel(topic);
  for (const c of changes) {
    const opts = { event: c.event ?? '*', schema: 'public', table: c.table, ...(c.filter ? { filter: c.filter } : {}) };
    ch = ch.on('postgres_changes', opts as { event: '*'; schema: string; table: string; filter?: string }, (p) => onChange((p.new ?? {}) as Record<string, unknown>));
  }
  ch.subscribe((status) => {
    if (status === 'SUBSCRIBED') onLive?.();
  });
  open.add(ch);
  return () => close(ch);
}

// Presence on one topic under an opaque key (lib/presence): onCount gets how many other
// keys are present at each sync; this browser is tracked once joined.
export function watchPresence(topic: string, key: string, onCount: (others: number) => void): () => void {
  const ch = supabase().channel(topic, { config: { presence: { key } } });
  ch.on('presence', { event: 'sync' }, () => onCount(Object.keys(ch.presenceState()).filter((k) => k !== key).length)).subscribe((status) => {
    if (status === 'SUBSCRIBED') void ch.track({ at: new Date().toISOString() });
  });
  open.add(ch);
  return () => close(ch);
}

// How many channels are open now (tests check that screens give theirs back).
export function openChannelCount(): number {
  return open.size;
}
