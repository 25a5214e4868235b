import { useEffect, useState } from 'react';
import { fetchFeedback, fetchUsers, updateUserRole, watchAdminTables, type FeedbackRow, type Role, type UserRow } from '../api/admin';

// The users and feedback an admin sees, kept live; changeRole saves one user's role and
// updates the list.
export function useAdminData(enabled: boolean) {
  const [users, setUsers] = useState<UserRow[] | null>(null);
  const [feedback, setFeedback] = useState<FeedbackRow[] | null>(null);
  const [feedbackTotal, setFeedbackTotal] = useState(0);
  const [feedbackPage, setFeedbackPage] = useState(0);
  const [err, setErr] = useState<string[]>([]);
  useEffect(() => {
    if (!enabled) return;
    const load = () => {
      fetchUsers().then(setUsers, () => setErr((e) => [...e, 'Failed to load users']));
      fetchFeedback(feedbackPage).then(
        (f) => {
          setFeedback(f.rows);
          setFeedbackTotal(f.total);
        },
        () => setErr((e) => [...e, 'Failed to load feedback']),
      );
    };
    load();
    // Live: new feedback and sign-ups appear without a reload.
    return watchAdminTables(load);
  }, [enabled, feedbackPage]);
  const changeRole = async (u: UserRow, role: Role) => {
    await updateUserRole(u.id, role);
    setUsers((list) => list?.map((x) => (x.id === u.id ? { ...x, role, is_admin: role === 'admin' } : x)) ?? null);
  };
  return { users, feedback, feedbackTotal, feedbackPage, setFeedbackPage, err, changeRole };
}
