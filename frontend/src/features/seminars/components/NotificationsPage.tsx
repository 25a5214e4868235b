import { useEffect, useState } from 'react';
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
  const [list, setList] = useState<Notification[] | null>(null);
  useEffect(() => {
    if (!userId) return;
    const load = () =>
      fetchNotifications().then((l) => {
        setList(l);
        const unread = l.filter((n) => !n.read_at).map((n) => n.id);
        if (unread.length) void markAllRead(unread).then(() => window.dispatchEvent(new Event(NOTIFICATIONS_READ)));
      }, () => setList([]));
    void load();
    return watchNotifications(userId, () => void load());
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
