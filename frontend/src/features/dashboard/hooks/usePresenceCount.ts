import { useEffect, useState } from 'react';
import { useUserId } from '../../../lib/auth/store';
import { presenceKey } from '../../../lib/presence';
import { useQuery } from '../../../lib/query';
import { watchPresence } from '../../../lib/realtime';

// How many others are present on a topic right now (realtime presence under an opaque key,
// see presenceKey); 0 when signed out.
export function usePresenceCount(topic: string): number {
  const userId = useUserId();
  const [n, setN] = useState(0);
  const key = useQuery(userId ? ['presence-key', userId, topic] : null, () => presenceKey(userId!, topic)).data;
  useEffect(() => {
    if (!key) return;
    return watchPresence(topic, key, setN);
  }, [topic, key]);
  return n;
}
