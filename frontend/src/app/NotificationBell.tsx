import { useEffect } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { BellIcon } from '../components/ui/icons';
import { NOTIFICATIONS_READ, unreadCount } from '../features/seminars/api/unread';
import { countOf } from '../lib/plural';
import { invalidateQueries, useQuery } from '../lib/query';
import { useUserId } from '../lib/auth/store';

const KEY = ['notifications-unread'] as const;

// The header's bell: the seminar notices not read yet, counted again on every page change
// and when the notifications page marks them read. It
// opens no realtime channel, so a page that needs none (the empty dashboard) does not load
// the realtime client for it; the notifications page itself is live.
export function NotificationBell() {
  const { pathname } = useLocation();
  const userId = useUserId();
  const n = useQuery(userId ? [...KEY, userId] : null, unreadCount).data ?? 0;
  useEffect(() => {
    const recount = () => invalidateQueries(KEY);
    recount();
    window.addEventListener(NOTIFICATIONS_READ, recount);
    return () => window.removeEventListener(NOTIFICATIONS_READ, recount);
  }, [pathname]);
  const label = n === 0 ? 'Notificări' : `Notificări: ${countOf(n, 'necitită', 'necitite')}`;
  return (
    <Link to="/notificari" className="bell" aria-label={label} data-testid="bell">
      <BellIcon />
      {n > 0 && <span className="bell-count" aria-hidden>{n > 99 ? '99+' : n}</span>}
    </Link>
  );
}
