import { useEffect, useState } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { fetchFeedback, fetchUsers, updateUserRole, watchAdminTables, type Role, type UserRow } from '../api/admin';

// The users and feedback an admin sees, kept live; changeRole saves one user's role and
// updates the list.
export function useAdminData(enabled: boolean) {
  const [feedbackPage, setFeedbackPage] = useState(0);
  const users = useQuery(enabled ? ['admin', 'users'] : null, fetchUsers);
  const feedback = useQuery(enabled ? ['admin', 'feedback', feedbackPage] : null, () => fetchFeedback(feedbackPage));
  // Live: new feedback and sign-ups appear without a reload.
  useEffect(() => {
    if (!enabled) return;
    return watchAdminTables(() => invalidateQueries(['admin']));
  }, [enabled]);
  const err = [...(users.status === 'error' ? ['Failed to load users'] : []), ...(feedback.status === 'error' ? ['Failed to load feedback'] : [])];
  const changeRole = async (u: UserRow, role: Role) => {
    await updateUserRole(u.id, role);
    await users.refetch();
  };
  return { users: users.data ?? null, feedback: feedback.data?.rows ?? null, feedbackTotal: feedback.data?.total ?? 0, feedbackPage, setFeedbackPage, err, changeRole };
}
