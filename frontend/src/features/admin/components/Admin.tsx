import { Link } from 'react-router-dom';
import { useAuthStore, useIsAdmin } from '../../../lib/auth/store';
import { toast } from '../../../components/ui/toast';
import { ArrowRightIcon } from '../../../components/ui/icons';
import { useAdminData } from '../hooks/useAdminData';
import { FEEDBACK_PAGE, type UserRow } from '../api/admin';

const ROLE_LABEL: Record<string, string> = { user: 'User', moderator: 'Moderator', admin: 'Admin' };
// The database's refusals, in the page's language (walkthrough 3, bug 18); anything else
// is shown as the server wrote it.
const ROLE_ERRORS: Record<string, string> = { 'cannot remove the last administrator': 'Nu poți retrage rolul ultimului administrator.' };
const roleError = (message: string | undefined) => (message && ROLE_ERRORS[message]) || message || 'Eroare necunoscută';

export default function Admin() {
  const loading = useAuthStore((s) => s.loading);
  const isAdmin = useIsAdmin();
  const { users, feedback, feedbackTotal, feedbackPage, setFeedbackPage, err, changeRole: saveRole } = useAdminData(isAdmin);
  const feedbackPages = Math.max(1, Math.ceil(feedbackTotal / FEEDBACK_PAGE));
  // Feedback sent signed in has no e-mail of its own: its author's account says who wrote it
  // (walkthrough 3, bug 24); 'Anonymous' is left for visitors who gave none.
  const author = (f: { user_id: string | null; email: string | null }) => f.email ?? users?.find((u) => u.id === f.user_id)?.email ?? 'Anonymous';
  if (loading) return null;
  if (!isAdmin) {
    return (
      <main className="page">
        <section className="card">
          <h1>Access Denied</h1>
          <p>You do not have permission to access this page.</p>
          <Link to="/dashboard">Înapoi la spețe</Link>
        </section>
      </main>
    );
  }
  const changeRole = async (u: UserRow, role: string) => {
    try {
      await saveRole(u, role);
    } catch (error) {
      toast.error('Eroare la actualizarea rolului', roleError((error as { message?: string }).message));
      return;
    }
    toast.success('Rol actualizat cu succes', `${u.name || u.email} este acum ${ROLE_LABEL[role]}.`);
  };
  return (
    <main className="page admin">
      {err.map((e) => <p key={e} className="error">{e}</p>)}
      <section className="card">
        <h2>Users <span className="count">{users?.length ?? 0}</span></h2>
        {/* On a phone each row is a card (styles.css, "admin cards"); data-label names its cells. */}
        <div className="table-wrap"><table className="card-table">
          <thead><tr><th>Email</th><th>Name</th><th>Username</th><th>University</th><th>Role</th><th>Joined</th></tr></thead>
          <tbody>
            {users?.map((u) => (
              <tr key={u.id}>
                <td data-label="Email" className="wrap">{u.email}</td><td data-label="Name">{u.name}</td><td data-label="Username">{u.username}</td><td data-label="University">{u.university_code}</td>
                <td data-label="Role">
                  <select aria-label={`Rol pentru ${u.email}`} value={u.role || (u.is_admin ? 'admin' : 'user')} onChange={(e) => changeRole(u, e.target.value)}>
                    <option value="user">User</option><option value="moderator">Moderator</option><option value="admin">Admin</option>
                  </select>
                </td>
                <td data-label="Joined">{new Date(u.created_at).toLocaleDateString('ro-RO')}</td>
              </tr>
            ))}
          </tbody>
        </table></div>
      </section>
      <section className="card">
        <h2>User Feedback <span className="count">{feedbackTotal}</span></h2>
        {feedback && feedback.length === 0 && <p className="muted">No feedback submitted yet</p>}
        <div className="table-wrap"><table className="card-table">
          {feedback && feedback.length > 0 && <thead><tr><th>Date</th><th>Email</th><th>Feedback</th></tr></thead>}
          <tbody>
            {feedback?.map((f) => (
              <tr key={f.id}>
                <td data-label="Date">{new Date(f.created_at).toLocaleString('ro-RO')}</td>
                <td data-label="Email" className="wrap">{author(f)}</td>
                <td data-label="Feedback"><div className="clamp3">{f.body}</div></td>
              </tr>
            ))}
          </tbody>
        </table></div>
        {feedbackPages > 1 && (
          <nav className="pager" aria-label="Paginile feedback-ului">
            <button type="button" disabled={feedbackPage === 0} onClick={() => setFeedbackPage(feedbackPage - 1)}>Mai noi</button>
            <span>Pagina {feedbackPage + 1} din {feedbackPages}</span>
            <button type="button" disabled={feedbackPage + 1 >= feedbackPages} onClick={() => setFeedbackPage(feedbackPage + 1)}>Mai vechi</button>
          </nav>
        )}
      </section>
      <div className="cards">
        {['Analytics', 'Case Management', 'System Settings'].map((t) => (
          <section className="card" key={t}><h3>{t}</h3>{t === 'Case Management' ? <Link to="/review">Cazuri de verificat <ArrowRightIcon /></Link> : <p className="muted">Coming soon...</p>}</section>
        ))}
      </div>
    </main>
  );
}
