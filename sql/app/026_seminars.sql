-- Seminars (issue 30): teaching staff (moderators) run groups, set spețe and grile as
-- assignments, follow their members' work and grade it; the AI grade is kept, the staff's
-- grade is the grade of record. The contract the screens build on is SEMINARS.md
-- (docs/SEMINARS.md); the rules live here:
--
--   * staff (the owner and co-teachers of a group) see a member's work only when it is
--     linked to one of the group's assignments and was submitted while the student was a
--     member (joined_at <= submitted_at < left_at); a co-teacher added later sees all of it;
--   * students see their own work, grades and notifications only;
--   * a grade of record is written only by the group's staff, through two RPCs, and every
--     change lands in seminar_grade_audit (a trigger; the audit is append-only);
--   * a submission linked to an assignment is checked by a trigger: membership, opening
--     time, the number of submissions that count, the deadline (the database clock at the
--     start of the request's transaction: work that reaches the server after the deadline
--     is late, accepted and marked or refused with a clear error, per the assignment's
--     policy; a refused text never left the student's draft), and the strictness is the
--     assignment's.
-- Every table is written through the RPCs below (SECURITY DEFINER, search_path pinned)
-- except notifications' read mark and case_submissions.assignment_id on insert.

-- Tables ---------------------------------------------------------------------------------

create table public.seminar_groups (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(btrim(name)) between 2 and 120),
  university_code text not null references public.universities (code) on update cascade,
  -- '2025-2026': two consecutive years.
  academic_year text not null check (academic_year ~ '^[0-9]{4}-[0-9]{4}$'
    and split_part(academic_year, '-', 2)::int = split_part(academic_year, '-', 1)::int + 1),
  semester smallint not null check (semester in (1, 2)),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);

-- Join codes, current and past: a code is current while retired_at is null (one per
-- group); a rotated one is kept so joining with it says "rotated", not "no such code".
create table public.seminar_join_codes (
  code text primary key check (code ~ '^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$'),
  group_id uuid not null references public.seminar_groups (id) on delete cascade,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
create unique index seminar_join_codes_current_idx on public.seminar_join_codes (group_id) where retired_at is null;

create table public.seminar_staff (
  group_id uuid not null references public.seminar_groups (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('owner', 'teacher')),
  added_by uuid references auth.users (id) on delete set null,
  added_at timestamptz not null default now(),
  primary key (group_id, user_id)
);
create unique index seminar_staff_owner_idx on public.seminar_staff (group_id) where role = 'owner';
create index seminar_staff_user_idx on public.seminar_staff (user_id);

-- One row per membership period: leaving (or removal) closes it; joining again opens a new one.
create table public.seminar_members (
  id uuid primary key default gen_random_uuid(),
  group_id uuid not null references public.seminar_groups (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  joined_at timestamptz not null default now(),
  left_at timestamptz,
  -- Set when staff removed the student (null when the student left).
  removed_by uuid references auth.users (id) on delete set null,
  check (left_at is null or left_at >= joined_at),
  check (removed_by is null or left_at is not null)
);
create unique index seminar_members_active_idx on public.seminar_members (group_id, user_id) where left_at is null;
create index seminar_members_user_idx on public.seminar_members (user_id, joined_at);

create table public.seminar_assignments (
  id uuid primary key default gen_random_uuid(),
  group_id uuid not null references public.seminar_groups (id) on delete cascade,
  kind text not null check (kind in ('case', 'grile')),
  title text not null check (char_length(btrim(title)) between 2 and 200),
  instructions text not null default '' check (char_length(instructions) <= 4000),
  -- kind = 'case'
  case_id uuid references public.cases (id) on delete restrict,
  -- kind = 'grile': chosen questions (in order), or grile_count drawn per student from
  -- grile_categories (law_categories ids; empty: any category).
  grile_question_ids uuid[],
  grile_categories text[],
  grile_count int check (grile_count between 1 and 100),
  grile_minutes int check (grile_minutes between 1 and 240),
  opens_at timestamptz not null default now(),
  deadline timestamptz not null,
  -- difficulty_rating of the submissions: 1 îngăduitor, 3 standard, 5 exigent.
  strictness int not null default 3 check (strictness in (1, 3, 5)),
  tutor_allowed boolean not null default true,
  -- Submissions after the first that count (revise and resubmit; for grile, new attempts).
  revisions_allowed int not null default 0 check (revisions_allowed between 0 and 5),
  late_policy text not null default 'accept' check (late_policy in ('accept', 'refuse')),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  check (deadline > opens_at),
  check ((kind = 'case') = (case_id is not null)),
  check (kind = 'case' or grile_minutes is not null),
  check (kind = 'case' or (cardinality(grile_question_ids) > 0) <> (grile_count is not null))
);
create index seminar_assignments_group_idx on public.seminar_assignments (group_id, deadline);
create index seminar_assignments_case_idx on public.seminar_assignments (case_id) where case_id is not null;

-- The link of a student's work to an assignment: on the submission (spețe) or the exam
-- (grile), set on insert and checked by the triggers below; late is the server's mark.
alter table public.case_submissions
  add column assignment_id uuid references public.seminar_assignments (id) on delete set null,
  add column late boolean not null default false;
create index case_submissions_assignment_idx on public.case_submissions (assignment_id, user_id, submitted_at)
  where assignment_id is not null;
alter table public.grile_exams
  add column assignment_id uuid references public.seminar_assignments (id) on delete set null,
  add column late boolean not null default false;
create index grile_exams_assignment_idx on public.grile_exams (assignment_id, user_id, started_at)
  where assignment_id is not null;

-- The grade of record of a submission, set by staff: the AI's criteria confirmed or
-- corrected. criteria: [{"id":"1.1","label":"…","score":4,"max":5,"ai_score":4,"comment":"…"|null}, …]
-- in rubric order; score is their sum.
create table public.seminar_grades (
  submission_id uuid primary key references public.case_submissions (id) on delete cascade,
  assignment_id uuid not null references public.seminar_assignments (id) on delete cascade,
  student_id uuid not null references auth.users (id) on delete cascade,
  source text not null check (source in ('ai_confirmed', 'staff')),
  criteria jsonb not null check (jsonb_typeof(criteria) = 'array'),
  score numeric(5, 2) not null check (score between 0 and 100),
  ai_score numeric(5, 2),
  comment text check (comment is null or char_length(comment) <= 4000),
  graded_by uuid references auth.users (id) on delete set null,
  graded_at timestamptz not null default now()
);
create index seminar_grades_assignment_idx on public.seminar_grades (assignment_id);
create index seminar_grades_student_idx on public.seminar_grades (student_id);

-- Every change of a grade of record (trigger), never updated or deleted.
create table public.seminar_grade_audit (
  id bigint generated always as identity primary key,
  submission_id uuid not null,
  assignment_id uuid not null,
  actor_id uuid,
  action text not null check (action in ('insert', 'update', 'delete')),
  old_values jsonb,
  new_values jsonb,
  created_at timestamptz not null default now()
);
create index seminar_grade_audit_submission_idx on public.seminar_grade_audit (submission_id, id);
create index seminar_grade_audit_assignment_idx on public.seminar_grade_audit (assignment_id, id);

create table public.seminar_notifications (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('assignment_new', 'deadline_soon', 'grade_confirmed')),
  group_id uuid references public.seminar_groups (id) on delete cascade,
  assignment_id uuid references public.seminar_assignments (id) on delete cascade,
  submission_id uuid references public.case_submissions (id) on delete cascade,
  -- The Romanian sentence to show, written when the event happens.
  body text not null,
  created_at timestamptz not null default now(),
  read_at timestamptz
);
create index seminar_notifications_user_idx on public.seminar_notifications (user_id, id desc);
-- One "new assignment" and one "deadline soon" per student and assignment.
create unique index seminar_notifications_once_idx on public.seminar_notifications (user_id, assignment_id, kind)
  where kind in ('assignment_new', 'deadline_soon');

-- Failed join-code look-ups per caller, for the guessing limit (kept an hour).
create table casus_meta.seminar_code_misses (
  user_id uuid not null,
  missed_at timestamptz not null default now()
);
create index seminar_code_misses_idx on casus_meta.seminar_code_misses (user_id, missed_at);

-- Helpers (definer: they read past the caller's policies) --------------------------------

create function public.seminar_is_staff(p_group_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.seminar_staff s where s.group_id = p_group_id and s.user_id = auth.uid())
$$;

create function public.seminar_is_member(p_group_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.seminar_members m
                 where m.group_id = p_group_id and m.user_id = auth.uid() and m.left_at is null)
$$;

-- Whether the caller is staff of the assignment's group and the student was a member when
-- the work was submitted: the one rule for every staff read of students' work.
create function public.seminar_staff_sees(p_assignment_id uuid, p_student uuid, p_at timestamptz) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.seminar_assignments a
    join public.seminar_staff s on s.group_id = a.group_id and s.user_id = auth.uid()
    join public.seminar_members m on m.group_id = a.group_id and m.user_id = p_student
    where a.id = p_assignment_id and m.joined_at <= p_at and (m.left_at is null or p_at < m.left_at))
$$;

-- Bucharest wall time for messages: 14.03.2026, 18:00.
create function public.seminar_when(p_at timestamptz) returns text
language sql stable set search_path = '' as $$
  select to_char(p_at at time zone 'Europe/Bucharest', 'DD.MM.YYYY, HH24:MI')
$$;

create function public.seminar_require_user() returns uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  if auth.uid() is null then
    raise exception 'Autentifică-te pentru a continua.' using errcode = '42501';
  end if;
  if coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false) then
    raise exception 'Creează-ți un cont ca să folosești grupele de seminar.' using errcode = '42501';
  end if;
  return auth.uid();
end
$$;

create function public.seminar_require_staff(p_group_id uuid) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.seminar_require_user();
  if not public.seminar_is_staff(p_group_id) then
    raise sqlstate 'PT404' using message = 'Grupa nu există sau nu faci parte din echipa ei.';
  end if;
end
$$;

create function public.seminar_require_owner(p_group_id uuid) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.seminar_require_staff(p_group_id);
  if not exists (select 1 from public.seminar_staff s where s.group_id = p_group_id and s.user_id = auth.uid() and s.role = 'owner') then
    raise exception 'Doar titularul grupei poate face asta.' using errcode = '42501';
  end if;
end
$$;

-- An 8-character code of the unambiguous alphabet (no 0/O, 1/I/L), never used before.
-- Bytes of 248 and above are skipped, so every letter is equally likely (248 = 8 × 31).
create function public.seminar_new_code() returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
  alphabet constant text := 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  c text;
  b bytea;
begin
  loop
    c := '';
    while length(c) < 8 loop
      b := public.gen_random_bytes(16);
      for i in 0..15 loop
        if get_byte(b, i) < 248 and length(c) < 8 then
          c := c || substr(alphabet, 1 + get_byte(b, i) % 31, 1);
        end if;
      end loop;
    end loop;
    exit when not exists (select 1 from public.seminar_join_codes j where j.code = c);
  end loop;
  return c;
end
$$;

-- Access ---------------------------------------------------------------------------------

revoke all on public.seminar_groups, public.seminar_join_codes, public.seminar_staff, public.seminar_members,
  public.seminar_assignments, public.seminar_grades, public.seminar_grade_audit, public.seminar_notifications
  from public, anon, authenticated;
grant all on public.seminar_groups, public.seminar_join_codes, public.seminar_staff, public.seminar_members,
  public.seminar_assignments, public.seminar_grades, public.seminar_grade_audit, public.seminar_notifications
  to service_role;
alter table public.seminar_groups enable row level security;
alter table public.seminar_join_codes enable row level security;
alter table public.seminar_staff enable row level security;
alter table public.seminar_members enable row level security;
alter table public.seminar_assignments enable row level security;
alter table public.seminar_grades enable row level security;
alter table public.seminar_grade_audit enable row level security;
alter table public.seminar_notifications enable row level security;

-- Groups: their staff and their current members read them.
grant select on public.seminar_groups to authenticated;
create policy seminar_groups_read on public.seminar_groups for select to authenticated
  using (public.seminar_is_staff(id) or public.seminar_is_member(id));

-- Codes: staff only (students learn a group from the code they hold, seminar_preview).
grant select on public.seminar_join_codes to authenticated;
create policy seminar_join_codes_read on public.seminar_join_codes for select to authenticated
  using (public.seminar_is_staff(group_id));

-- Staff rows: the group's staff and members (who teaches the group).
grant select on public.seminar_staff to authenticated;
create policy seminar_staff_read on public.seminar_staff for select to authenticated
  using (public.seminar_is_staff(group_id) or public.seminar_is_member(group_id));

-- Memberships: the group's staff, and each student their own.
grant select on public.seminar_members to authenticated;
create policy seminar_members_read on public.seminar_members for select to authenticated
  using (user_id = (select auth.uid()) or public.seminar_is_staff(group_id));

-- Assignments: staff all of them; current members those already open; a student also
-- those they handed work in for (their history after leaving).
grant select on public.seminar_assignments to authenticated;
create policy seminar_assignments_read on public.seminar_assignments for select to authenticated
  using (public.seminar_is_staff(group_id)
    or (opens_at <= now() and public.seminar_is_member(group_id))
    or exists (select 1 from public.case_submissions s where s.assignment_id = id and s.user_id = (select auth.uid()))
    or exists (select 1 from public.grile_exams e where e.assignment_id = id and e.user_id = (select auth.uid())));

-- The work itself: besides the owner's own policies (002, 017), staff read what the rule
-- of seminar_staff_sees allows.
create policy case_submissions_read_seminar_staff on public.case_submissions for select to authenticated
  using (assignment_id is not null and public.seminar_staff_sees(assignment_id, user_id, submitted_at));
create policy grile_exams_read_seminar_staff on public.grile_exams for select to authenticated
  using (assignment_id is not null and public.seminar_staff_sees(assignment_id, user_id, started_at));
grant insert (assignment_id) on public.case_submissions to authenticated;

-- Grades of record: the student and the staff who see the submission; written by RPCs only.
grant select on public.seminar_grades to authenticated;
create policy seminar_grades_read on public.seminar_grades for select to authenticated
  using (student_id = (select auth.uid())
    or public.seminar_staff_sees(assignment_id, student_id,
         (select s.submitted_at from public.case_submissions s where s.id = submission_id)));

-- The audit: the group's staff (who changed which grade when).
grant select on public.seminar_grade_audit to authenticated;
create policy seminar_grade_audit_read on public.seminar_grade_audit for select to authenticated
  using (exists (select 1 from public.seminar_assignments a where a.id = assignment_id and public.seminar_is_staff(a.group_id)));

-- Notifications: own; the owner marks them read or deletes them.
grant select, delete on public.seminar_notifications to authenticated;
grant update (read_at) on public.seminar_notifications to authenticated;
create policy seminar_notifications_read on public.seminar_notifications for select to authenticated
  using (user_id = (select auth.uid()));
create policy seminar_notifications_update on public.seminar_notifications for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy seminar_notifications_delete on public.seminar_notifications for delete to authenticated
  using (user_id = (select auth.uid()));

select public.forbid_anonymous_writes('public.seminar_groups');
select public.forbid_anonymous_writes('public.seminar_join_codes');
select public.forbid_anonymous_writes('public.seminar_staff');
select public.forbid_anonymous_writes('public.seminar_members');
select public.forbid_anonymous_writes('public.seminar_assignments');
select public.forbid_anonymous_writes('public.seminar_grades');
select public.forbid_anonymous_writes('public.seminar_grade_audit');
select public.forbid_anonymous_writes('public.seminar_notifications');

-- Submissions linked to an assignment ----------------------------------------------------

-- Checks a student's new work on an assignment and marks it late; raises the error the
-- student reads. p_kind is the kind of work ('case' or 'grile').
create function public.seminar_check_work(p_assignment_id uuid, p_user uuid, p_kind text, p_case_id uuid)
returns public.seminar_assignments
language plpgsql stable security definer set search_path = '' as $$
declare
  a public.seminar_assignments;
  used int;
begin
  select * into a from public.seminar_assignments where id = p_assignment_id;
  if not found then
    raise sqlstate 'PT404' using message = 'Tema nu există.';
  end if;
  if not exists (select 1 from public.seminar_members m where m.group_id = a.group_id and m.user_id = p_user and m.left_at is null) then
    raise exception 'Nu ești membru al grupei acestei teme.' using errcode = '42501';
  end if;
  if a.kind <> p_kind then
    raise exception '%', case when a.kind = 'grile' then 'Această temă este un set de grile, nu o speță.'
                              else 'Această temă este o speță, nu un set de grile.' end using errcode = '22023';
  end if;
  if p_kind = 'case' and p_case_id is distinct from a.case_id then
    raise exception 'Soluția nu este pentru cazul acestei teme.' using errcode = '22023';
  end if;
  if now() < a.opens_at then
    raise exception 'Tema se deschide pe %.', public.seminar_when(a.opens_at) using errcode = '22023';
  end if;
  if now() > a.deadline and a.late_policy = 'refuse' then
    raise exception 'Termenul temei a trecut (%). Asistentul nu primește soluții întârziate; textul tău a rămas salvat ca ciornă.',
      public.seminar_when(a.deadline) using errcode = '22023', hint = 'seminar_deadline_passed';
  end if;
  if p_kind = 'case' then
    select count(*) into used from public.case_submissions s where s.assignment_id = a.id and s.user_id = p_user;
  else
    select count(*) into used from public.grile_exams e where e.assignment_id = a.id and e.user_id = p_user;
  end if;
  if used > a.revisions_allowed then
    raise exception '%', case when a.revisions_allowed = 0 then 'Ai predat deja această temă; asistentul nu primește revizuiri.'
                              else format('Ai folosit toate cele %s revizuiri permise pentru această temă.', a.revisions_allowed) end
      using errcode = '22023', hint = 'seminar_no_revisions_left';
  end if;
  return a;
end
$$;

create function public.case_submissions_seminar_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  a public.seminar_assignments;
begin
  if tg_op = 'INSERT' then
    if new.assignment_id is null then
      return new;
    end if;
    a := public.seminar_check_work(new.assignment_id, new.user_id, 'case', new.case_id);
    new.late := now() > a.deadline;
    new.difficulty_rating := a.strictness;
    return new;
  end if;
  -- UPDATE: the link and the mark are the server's.
  if new.assignment_id is distinct from old.assignment_id and old.assignment_id is not null
     and current_user in ('anon', 'authenticated') then
    raise exception 'Legătura soluției cu tema nu se poate schimba.' using errcode = '42501';
  end if;
  if old.assignment_id is null then
    return new;
  end if;
  select * into a from public.seminar_assignments where id = old.assignment_id;
  if found and new.difficulty_rating is distinct from old.difficulty_rating then
    new.difficulty_rating := a.strictness;
  end if;
  -- An edit of the text after the deadline is late work too.
  if found and new.submission_text is distinct from old.submission_text and now() > a.deadline then
    if a.late_policy = 'refuse' then
      raise exception 'Termenul temei a trecut (%). Soluția nu mai poate fi modificată; textul tău a rămas salvat ca ciornă.',
        public.seminar_when(a.deadline) using errcode = '22023', hint = 'seminar_deadline_passed';
    end if;
    new.late := true;
  end if;
  return new;
end
$$;
create trigger case_submissions_seminar_check before insert or update on public.case_submissions
  for each row execute function public.case_submissions_seminar_check();
