import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useUserId } from '../../../lib/auth/store';
import { useGroup } from '../hooks/useGroup';
import { JoinCodeCard } from './JoinCodeCard';
import { Gradebook } from './Gradebook';
import { AssignmentsCard } from './AssignmentsCard';
import { PeopleCard } from './PeopleCard';
import { SubmissionView } from './SubmissionView';
import { EditGroup } from './EditGroup';
import { ArrowLeftIcon } from '../../../components/ui/icons';
import '../seminars.css';

// /seminar/<group>, the staff's page of one group: the join code, the grade table (live),
// the assignments with their statistics, the team and the members; a table cell with work
// opens the submission view.
export default function GroupPage() {
  const { group: groupId = '' } = useParams();
  const userId = useUserId();
  const g = useGroup(groupId);
  const [open, setOpen] = useState<string | null>(null);
  if (g.group === undefined) return <main className="page"><div className="skeleton tall" aria-busy="true" /></main>;
  if (g.group === null)
    return (
      <main className="page seminar-page">
        <p className="error" role="alert">{g.error ?? 'Grupa nu există sau nu faci parte din echipa ei.'}</p>
        <Link to="/seminar">Grupele mele</Link>
      </main>
    );
  const isOwner = g.people.some((p) => p.user_id === userId && p.kind === 'owner');
  const isStaff = g.people.some((p) => p.user_id === userId && p.kind !== 'member');
  if (!isStaff && g.people.length > 0)
    return (
      <main className="page seminar-page">
        <p className="error" role="alert">Grupa nu există sau nu faci parte din echipa ei.</p>
        <Link to="/seminar">Grupele mele</Link>
      </main>
    );
  return (
    <main className="page seminar-page wide">
      <header className="seminar-head">
        <Link to="/seminar" className="back"><ArrowLeftIcon /> Grupele mele</Link>
        <h1>{g.group.name}</h1>
        <p className="muted">{g.group.academic_year} · semestrul {g.group.semester}</p>
        <EditGroup key={`${g.group.name}|${g.group.university_code}|${g.group.academic_year}|${g.group.semester}`} group={g.group} onSaved={g.reload} />
      </header>
      {g.error && <p className="error" role="alert">{g.error}</p>}
      <JoinCodeCard groupId={groupId} code={g.code} onChange={g.reload} />
      <Gradebook rows={g.gradebook} live={g.live} groupName={g.group.name} onOpen={setOpen} />
      {open && <SubmissionView key={open} submissionId={open} onClose={() => setOpen(null)} />}
      <AssignmentsCard groupId={groupId} assignments={g.assignments} onCreated={g.reload} />
      <PeopleCard groupId={groupId} people={g.people} isOwner={isOwner} onChange={g.reload} />
    </main>
  );
}
