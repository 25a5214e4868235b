import { useEffect } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { Link } from 'react-router-dom';
import { useUserId } from '../../../lib/auth/store';
import { fetchNotifications, markAllRead, watchNotifications, type Notification } from '../api/seminars';
import { NOTIFICATIONS_READ } from '../api/unread';
import { fmtWhen } from '../utils/time';
import '../seminars.css';

const KIND: Record<string, string> = { assignment_new: 'Temă nouă', deadline_soon: 'Termen în 24 de ore', grade_confirmed: 'Notă confirmată' };

// /notificari: the seminar notices (a new assignment, a deadline within a day, a grade
// confirmed), newest first, live; opening the page marks them read.
export default function NotificationsPage() {
  const userId = useUserId();
  const list: Notification[] | undefined = useQuery(userId ? ['notifications', userId] : null, fetchNotifications).data;
  // Shown, they are read: marked so, and the bell counts again.
  const unread = (list ?? []).filter((n) => !n.read_at).map((n) => n.id).join(',');
  useEffect(() => {
    if (!unread) return;
    void markAllRead(unread.split(',').map(Number)).then(() => window.dispatchEvent(new Event(NOTIFICATIONS_READ)));
  }, [unread]);
  useEffect(() => {
    if (!userId) return;
    return watchNotifications(userId, () => invalidateQueries(['notifications', userId]));
  }, [userId]);
  return (
    <main className="page seminar-page">
      <section className="card">
        <h1>Notificări</h1>
        {list && list.length === 0 && <p className="muted">Nu ai notificări.</p>}
        <ul className="list notifications">
          {list?.map((n) => (
            <li key={n.id} className={n.read_at ? undefined : 'unread'} data-testid="notification">
              <span className="badge">{KIND[n.kind] ?? n.kind}</span> {n.body}
              <div className="muted">{fmtWhen(n.created_at)}</div>
            </li>
          ))}
        </ul>
        <p><Link to="/dashboard">Înapoi la spețe</Link></p>
      </section>
    </main>
  );
}
