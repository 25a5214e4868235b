import { useEffect, useState } from 'react';
import { useUserId } from '../../../lib/auth/store';
import { presenceKey } from '../../../lib/presence';
import { watchPresence } from '../../../lib/realtime';

// How many others are present on a topic right now (realtime presence under an opaque key,
// see presenceKey); 0 when signed out.
export function usePresenceCount(topic: string): number {
  const userId = useUserId();
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!userId) return;
    let stop: (() => void) | null = null;
    let gone = false;
    presenceKey(userId, topic).then((key) => {
      if (!gone) stop = watchPresence(topic, key, setN);
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [topic, userId]);
  return n;
}
