// The header's bell: how many seminar notifications are unread. Kept apart from the
// feature's other calls so the app shell carries only this much of it. The first call of
// a page load asks the server to write the due "deadline within 24 hours" notices.
import { supabase } from '../../../lib/supabase';

let synced = false;

export async function unreadCount(): Promise<number> {
  if (!synced) {
    synced = true;
    await supabase().rpc('seminar_notifications_sync');
  }
  const { count } = await supabase().from('seminar_notifications').select('id', { count: 'exact', head: true }).is('read_at', null);
  return count ?? 0;
}

// Sent on window when notifications were marked read, so the bell counts again.
export const NOTIFICATIONS_READ = 'casus:notifications-read';
