-- Seminars (issue 30): teaching staff (moderators) run groups, set spețe and grile as
-- assignments, follow their members' work and grade it; the AI grade is kept, the staff's
-- grade is the grade of record. The contract the screens build on is docs/SEMINARS.md;
-- the rules live here:
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

-- Times the screens send: a datetime-local value ('2026-03-14T18:00') is Bucharest wall
-- time; a value with an offset or Z is taken as is.
create function public.seminar_parse_time(p text) returns timestamptz
language plpgsql stable set search_path = '' as $$
begin
  if p is null or btrim(p) = '' then
    return null;
  end if;
  if btrim(p) ~ '(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$' then
    return btrim(p)::timestamptz;
  end if;
  return btrim(p)::timestamp at time zone 'Europe/Bucharest';
exception when others then
  raise exception 'Data „%” nu este validă.', left(p, 40) using errcode = '22023';
end
$$;

-- Groups, codes, staff, members ----------------------------------------------------------

create function public.seminar_create_group(p_name text, p_university_code text, p_academic_year text,
  p_semester int, p_code_expires_at text default null) returns public.seminar_groups
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
  g public.seminar_groups;
  expires timestamptz := public.seminar_parse_time(p_code_expires_at);
begin
  if not public.is_moderator() then
    raise exception 'Doar cadrele didactice (moderatorii) pot crea grupe de seminar.' using errcode = '42501';
  end if;
  if char_length(btrim(coalesce(p_name, ''))) not between 2 and 120 then
    raise exception 'Numele grupei trebuie să aibă între 2 și 120 de caractere.' using errcode = '22023';
  end if;
  if not exists (select 1 from public.universities u where u.code = p_university_code) then
    raise exception 'Alege facultatea din listă.' using errcode = '22023';
  end if;
  if coalesce(p_academic_year, '') !~ '^[0-9]{4}-[0-9]{4}$'
     or split_part(p_academic_year, '-', 2)::int <> split_part(p_academic_year, '-', 1)::int + 1 then
    raise exception 'Anul universitar are forma 2025-2026.' using errcode = '22023';
  end if;
  if p_semester is null or p_semester not in (1, 2) then
    raise exception 'Semestrul este 1 sau 2.' using errcode = '22023';
  end if;
  if expires is not null and expires <= now() then
    raise exception 'Data de expirare a codului trebuie să fie în viitor.' using errcode = '22023';
  end if;
  insert into public.seminar_groups (name, university_code, academic_year, semester, created_by)
  values (btrim(p_name), p_university_code, p_academic_year, p_semester, uid) returning * into g;
  insert into public.seminar_staff (group_id, user_id, role, added_by) values (g.id, uid, 'owner', uid);
  insert into public.seminar_join_codes (code, group_id, expires_at) values (public.seminar_new_code(), g.id, expires);
  return g;
end
$$;

create function public.seminar_rotate_code(p_group_id uuid, p_expires_at text default null) returns public.seminar_join_codes
language plpgsql volatile security definer set search_path = '' as $$
declare
  expires timestamptz := public.seminar_parse_time(p_expires_at);
  c public.seminar_join_codes;
begin
  perform public.seminar_require_staff(p_group_id);
  if expires is not null and expires <= now() then
    raise exception 'Data de expirare a codului trebuie să fie în viitor.' using errcode = '22023';
  end if;
  update public.seminar_join_codes set retired_at = now() where group_id = p_group_id and retired_at is null;
  insert into public.seminar_join_codes (code, group_id, expires_at) values (public.seminar_new_code(), p_group_id, expires)
  returning * into c;
  return c;
end
$$;

-- The current code a caller typed, or the error they read. Wrong codes count towards a
-- limit of 20 an hour per caller, so codes cannot be found by guessing.
create function public.seminar_code_group(p_code text) returns uuid
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
  norm text := upper(regexp_replace(coalesce(p_code, ''), '[\s-]', '', 'g'));
  c public.seminar_join_codes;
begin
  delete from casus_meta.seminar_code_misses where missed_at < now() - interval '1 hour';
  if (select count(*) from casus_meta.seminar_code_misses m where m.user_id = uid) >= 20 then
    raise sqlstate 'PGRST' using
      message = json_build_object('code', 'seminar_code_rate_limit',
        'message', 'Prea multe coduri greșite. Încearcă din nou peste o oră.')::text,
      detail = json_build_object('status', 429, 'headers', json_build_object('Retry-After', '3600'))::text;
  end if;
  select * into c from public.seminar_join_codes j where j.code = norm;
  if not found then
    -- No error here: an error would roll the count back. The RPCs answer no row.
    insert into casus_meta.seminar_code_misses (user_id) values (uid);
    return null;
  end if;
  if c.retired_at is not null then
    raise exception 'Codul a fost înlocuit de asistent. Cere-i codul nou al grupei.' using errcode = '22023', hint = 'seminar_code_rotated';
  end if;
  if c.expires_at is not null and c.expires_at <= now() then
    raise exception 'Codul a expirat. Cere-i asistentului un cod nou.' using errcode = '22023', hint = 'seminar_code_expired';
  end if;
  return c.group_id;
end
$$;

-- What joining a group means, before joining: the group, its staff, and where the caller
-- stands. No row: the code does not exist (the screen says so).
create function public.seminar_preview(p_code text)
returns table (group_id uuid, name text, university_code text, university_name text, academic_year text,
  semester smallint, staff jsonb, already_member boolean, is_staff boolean)
language plpgsql volatile security definer set search_path = '' as $$
declare
  gid uuid := public.seminar_code_group(p_code);
begin
  if gid is null then
    return;
  end if;
  return query
  select g.id, g.name, g.university_code, u.name, g.academic_year, g.semester,
         coalesce((select jsonb_agg(jsonb_build_object('username', p.username, 'name', p.name, 'role', s.role)
                                    order by s.role = 'teacher', s.added_at)
                   from public.seminar_staff s join public.user_profiles p on p.id = s.user_id
                   where s.group_id = g.id), '[]'::jsonb),
         exists (select 1 from public.seminar_members m where m.group_id = g.id and m.user_id = auth.uid() and m.left_at is null),
         exists (select 1 from public.seminar_staff s where s.group_id = g.id and s.user_id = auth.uid())
  from public.seminar_groups g join public.universities u on u.code = g.university_code
  where g.id = gid;
end
$$;

-- Joins the group of a code. No row: the code does not exist.
create function public.seminar_join(p_code text) returns setof public.seminar_members
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
  gid uuid := public.seminar_code_group(p_code);
  removed_at timestamptz;
  m public.seminar_members;
begin
  if gid is null then
    return;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('seminar_join:' || uid::text || gid::text, 0));
  if exists (select 1 from public.seminar_staff s where s.group_id = gid and s.user_id = uid) then
    raise exception 'Faci parte din echipa acestei grupe; nu te poți înscrie ca student.' using errcode = '22023';
  end if;
  if exists (select 1 from public.seminar_members x where x.group_id = gid and x.user_id = uid and x.left_at is null) then
    raise exception 'Ești deja membru al acestei grupe.' using errcode = '23505', hint = 'seminar_already_member';
  end if;
  -- A removed student comes back only with a code made after the removal.
  select max(x.left_at) into removed_at from public.seminar_members x
  where x.group_id = gid and x.user_id = uid and x.removed_by is not null;
  if removed_at is not null and (select j.created_at from public.seminar_join_codes j
      where j.code = upper(regexp_replace(coalesce(p_code, ''), '[\s-]', '', 'g'))) <= removed_at then
    raise exception 'Asistentul te-a scos din această grupă. Cere-i un cod nou ca să revii.' using errcode = '42501', hint = 'seminar_removed';
  end if;
  insert into public.seminar_members (group_id, user_id) values (gid, uid) returning * into m;
  return next m;
end
$$;

create function public.seminar_leave(p_group_id uuid) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
begin
  update public.seminar_members set left_at = now() where group_id = p_group_id and user_id = uid and left_at is null;
  if not found then
    raise sqlstate 'PT404' using message = 'Nu ești membru al acestei grupe.';
  end if;
end
$$;

create function public.seminar_remove_member(p_group_id uuid, p_user_id uuid) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  perform public.seminar_require_staff(p_group_id);
  update public.seminar_members set left_at = now(), removed_by = auth.uid()
  where group_id = p_group_id and user_id = p_user_id and left_at is null;
  if not found then
    raise sqlstate 'PT404' using message = 'Studentul nu este membru al grupei.';
  end if;
end
$$;

-- Co-teachers are teaching staff too: moderators (or admins), named by username.
create function public.seminar_add_teacher(p_group_id uuid, p_username text) returns public.seminar_staff
language plpgsql volatile security definer set search_path = '' as $$
declare
  who public.user_profiles;
  uname text := btrim(coalesce(p_username, ''));
  s public.seminar_staff;
begin
  perform public.seminar_require_owner(p_group_id);
  select * into who from public.user_profiles p where lower(p.username) = lower(ltrim(uname, '@'));
  if not found then
    raise sqlstate 'PT404' using message = format('Nu există niciun utilizator cu numele „%s”.', left(uname, 50));
  end if;
  if who.role not in ('moderator', 'admin') then
    raise exception '„%” nu este cadru didactic în Casus (rolul de moderator îl acordă un administrator).', who.username using errcode = '22023';
  end if;
  if exists (select 1 from public.seminar_staff x where x.group_id = p_group_id and x.user_id = who.id) then
    raise exception '„%” face deja parte din echipa grupei.', who.username using errcode = '23505';
  end if;
  if exists (select 1 from public.seminar_members m where m.group_id = p_group_id and m.user_id = who.id and m.left_at is null) then
    raise exception '„%” este student în această grupă; scoate-l mai întâi dintre membri.', who.username using errcode = '22023';
  end if;
  insert into public.seminar_staff (group_id, user_id, role, added_by) values (p_group_id, who.id, 'teacher', auth.uid())
  returning * into s;
  return s;
end
$$;

create function public.seminar_remove_teacher(p_group_id uuid, p_user_id uuid) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  perform public.seminar_require_owner(p_group_id);
  if exists (select 1 from public.seminar_staff s where s.group_id = p_group_id and s.user_id = p_user_id and s.role = 'owner') then
    raise exception 'Titularul nu poate fi scos din echipă.' using errcode = '22023';
  end if;
  delete from public.seminar_staff where group_id = p_group_id and user_id = p_user_id;
  if not found then
    raise sqlstate 'PT404' using message = 'Utilizatorul nu face parte din echipa grupei.';
  end if;
end
$$;

-- Names of a group's people: staff see staff and every member (former ones too); members
-- see the staff.
create function public.seminar_people(p_group_id uuid)
returns table (user_id uuid, username text, name text, kind text, joined_at timestamptz, left_at timestamptz, removed boolean)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.seminar_require_user();
  if not (public.seminar_is_staff(p_group_id) or public.seminar_is_member(p_group_id)) then
    raise sqlstate 'PT404' using message = 'Grupa nu există sau nu faci parte din ea.';
  end if;
  return query
  select s.user_id, p.username, p.name, s.role, s.added_at, null::timestamptz, false
  from public.seminar_staff s join public.user_profiles p on p.id = s.user_id
  where s.group_id = p_group_id
  union all
  select * from (
    select distinct on (m.user_id) m.user_id, p.username, p.name, 'member'::text, m.joined_at, m.left_at, m.removed_by is not null
    from public.seminar_members m join public.user_profiles p on p.id = m.user_id
    where m.group_id = p_group_id and public.seminar_is_staff(p_group_id)
    order by m.user_id, m.joined_at desc) latest;
end
$$;

-- Assignments ----------------------------------------------------------------------------

create function public.seminar_create_assignment(p_group_id uuid, p_kind text, p_deadline text,
  p_title text default null, p_case_id uuid default null, p_opens_at text default null, p_instructions text default '',
  p_strictness int default 3, p_tutor_allowed boolean default true, p_revisions_allowed int default 0,
  p_late_policy text default 'accept', p_grile_question_ids uuid[] default null, p_grile_categories text[] default null,
  p_grile_count int default null, p_grile_minutes int default null)
returns public.seminar_assignments
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  opens timestamptz := coalesce(public.seminar_parse_time(p_opens_at), now());
  due timestamptz := public.seminar_parse_time(p_deadline);
  c public.cases;
  title text := nullif(btrim(coalesce(p_title, '')), '');
  ids uuid[];
  available int;
  a public.seminar_assignments;
begin
  perform public.seminar_require_staff(p_group_id);
  if due is null then
    raise exception 'Alege termenul-limită al temei.' using errcode = '22023';
  end if;
  if due <= now() then
    raise exception 'Termenul-limită este în trecut.' using errcode = '22023', hint = 'seminar_deadline_in_past';
  end if;
  if due <= opens then
    raise exception 'Termenul-limită trebuie să fie după deschiderea temei.' using errcode = '22023';
  end if;
  if coalesce(p_strictness, 0) not in (1, 3, 5) then
    raise exception 'Exigența este 1, 3 sau 5.' using errcode = '22023';
  end if;
  if coalesce(p_revisions_allowed, -1) not between 0 and 5 then
    raise exception 'Revizuirile permise sunt între 0 și 5.' using errcode = '22023';
  end if;
  if coalesce(p_late_policy, '') not in ('accept', 'refuse') then
    raise exception 'Politica de întârziere este accept sau refuse.' using errcode = '22023';
  end if;
  if char_length(coalesce(p_instructions, '')) > 4000 then
    raise exception 'Indicațiile pot avea cel mult 4000 de caractere.' using errcode = '22023';
  end if;
  if p_kind = 'case' then
    select * into c from public.cases where id = p_case_id;
    if not found then
      raise sqlstate 'PT404' using message = 'Cazul nu există.';
    end if;
    if c.rejection_reason is not null then
      raise exception 'Cazul a fost respins la verificare și nu poate fi dat ca temă.' using errcode = '22023', hint = 'seminar_case_rejected';
    end if;
    if not (c.user_id is null or c.verified or c.user_id = uid) then
      raise exception 'Poți da ca temă un caz din curriculum, un caz verificat sau unul generat de tine.' using errcode = '22023';
    end if;
    title := coalesce(title, c.title);
  elsif p_kind = 'grile' then
    if coalesce(p_grile_minutes, 0) not between 1 and 240 then
      raise exception 'Durata grilelor este între 1 și 240 de minute.' using errcode = '22023';
    end if;
    if (coalesce(cardinality(p_grile_question_ids), 0) > 0) = (p_grile_count is not null) then
      raise exception 'Alege grilele temei sau câte grile să fie extrase din categorii.' using errcode = '22023';
    end if;
    if p_grile_count is not null then
      if p_grile_count not between 1 and 100 then
        raise exception 'Numărul de grile este între 1 și 100.' using errcode = '22023';
      end if;
      select count(*) into available from public.grile_questions q
      where q.retired_at is null and (coalesce(cardinality(p_grile_categories), 0) = 0 or q.category_id = any (p_grile_categories));
      if available < p_grile_count then
        raise exception 'În categoriile alese sunt doar % grile.', available using errcode = '22023';
      end if;
    else
      select array_agg(distinct x) into ids from unnest(p_grile_question_ids) x;
      if cardinality(ids) > 100 then
        raise exception 'Numărul de grile este între 1 și 100.' using errcode = '22023';
      end if;
      if (select count(*) from public.grile_questions q where q.id = any (ids) and q.retired_at is null) <> cardinality(ids) then
        raise exception 'Unele grile alese nu există sau au fost retrase.' using errcode = '22023';
      end if;
    end if;
    title := coalesce(title, 'Grile');
  else
    raise exception 'Tipul temei este case sau grile.' using errcode = '22023';
  end if;
  if char_length(title) not between 2 and 200 then
    raise exception 'Titlul temei trebuie să aibă între 2 și 200 de caractere.' using errcode = '22023';
  end if;
  insert into public.seminar_assignments (group_id, kind, title, instructions, case_id, grile_question_ids, grile_categories,
    grile_count, grile_minutes, opens_at, deadline, strictness, tutor_allowed, revisions_allowed, late_policy, created_by)
  values (p_group_id, p_kind, title, coalesce(p_instructions, ''), case when p_kind = 'case' then c.id end,
    case when p_kind = 'grile' and p_grile_count is null then
      (select array_agg(x order by o) from (select distinct on (x) x, o from unnest(p_grile_question_ids) with ordinality t(x, o) order by x, o) d)
    end,
    case when p_kind = 'grile' and p_grile_count is not null then coalesce(p_grile_categories, '{}') end,
    case when p_kind = 'grile' then p_grile_count end, case when p_kind = 'grile' then p_grile_minutes end,
    opens, due, p_strictness, coalesce(p_tutor_allowed, true), p_revisions_allowed, p_late_policy, uid)
  returning * into a;
  return a;
end
$$;

-- A new assignment is announced to the group's current members.
create function public.seminar_assignments_notify() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  gname text := (select g.name from public.seminar_groups g where g.id = new.group_id);
begin
  insert into public.seminar_notifications (user_id, kind, group_id, assignment_id, body)
  select m.user_id, 'assignment_new', new.group_id, new.id,
         format('Temă nouă în grupa %s: „%s”, termen %s.', gname, new.title, public.seminar_when(new.deadline))
         || case when new.opens_at > now() then format(' Se deschide pe %s.', public.seminar_when(new.opens_at)) else '' end
  from public.seminar_members m
  where m.group_id = new.group_id and m.left_at is null
  on conflict do nothing;
  return null;
end
$$;
create trigger seminar_assignments_notify after insert on public.seminar_assignments
  for each row execute function public.seminar_assignments_notify();

-- "Deadline within 24 hours" for current members with no work handed in yet, once per
-- student and assignment: for one user (the app calls it as the user) or for everyone
-- (the server's ticker, as the owner).
create function public.seminar_notify_deadlines(p_user uuid default null) returns int
language plpgsql volatile security definer set search_path = '' as $$
declare
  n int;
begin
  insert into public.seminar_notifications (user_id, kind, group_id, assignment_id, body)
  select m.user_id, 'deadline_soon', a.group_id, a.id,
         format('Termenul temei „%s” expiră pe %s, în mai puțin de 24 de ore.', a.title, public.seminar_when(a.deadline))
  from public.seminar_assignments a
  join public.seminar_members m on m.group_id = a.group_id and m.left_at is null
  where a.deadline > now() and a.deadline <= now() + interval '24 hours' and a.opens_at <= now()
    and (p_user is null or m.user_id = p_user)
    and not exists (select 1 from public.case_submissions s where s.assignment_id = a.id and s.user_id = m.user_id)
    and not exists (select 1 from public.grile_exams e where e.assignment_id = a.id and e.user_id = m.user_id and e.finished_at is not null)
  on conflict do nothing;
  get diagnostics n = row_count;
  return n;
end
$$;

create function public.seminar_notifications_sync() returns int
language sql volatile security definer set search_path = '' as $$
  select public.seminar_notify_deadlines(public.seminar_require_user())
$$;

-- Starts (or resumes) the caller's grile exam of an assignment: the chosen questions in
-- their order, or the count drawn from the categories (questions the student has not
-- answered before first). Under a refuse policy the exam ends at the deadline.
create function public.seminar_grile_start(p_assignment_id uuid) returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
  a public.seminar_assignments;
  e public.grile_exams;
  n int;
begin
  perform pg_advisory_xact_lock(hashtextextended('seminar_grile_start:' || uid::text || p_assignment_id::text, 0));
  select * into e from public.grile_exams x
  where x.assignment_id = p_assignment_id and x.user_id = uid and x.finished_at is null and x.deadline > now();
  if found then
    return e;
  end if;
  a := public.seminar_check_work(p_assignment_id, uid, 'grile', null);
  -- A running practice exam is scored first, as grile_exam_start does.
  perform public.grile_exam_score(x.id) from public.grile_exams x where x.user_id = uid and x.finished_at is null;
  n := coalesce(cardinality(a.grile_question_ids), a.grile_count);
  insert into public.grile_exams (user_id, categories, duration_seconds, deadline, question_count, assignment_id, late)
  values (uid, coalesce(a.grile_categories, '{}'), a.grile_minutes * 60,
    case when a.late_policy = 'refuse' then least(now() + make_interval(mins => a.grile_minutes), a.deadline)
         else now() + make_interval(mins => a.grile_minutes) end,
    n, a.id, now() > a.deadline)
  returning * into e;
  if a.grile_question_ids is not null then
    insert into public.grile_exam_answers (exam_id, position, question_id)
    select e.id, t.o, t.q from unnest(a.grile_question_ids) with ordinality t(q, o);
  else
    insert into public.grile_exam_answers (exam_id, position, question_id)
    select e.id, row_number() over (), s.id
    from (select q.id from public.grile_questions q
          where q.retired_at is null and (cardinality(a.grile_categories) = 0 or q.category_id = any (a.grile_categories))
          order by exists (select 1 from public.grile_seen g where g.user_id = uid and g.question_id = q.id), random()
          limit n) s;
  end if;
  return e;
end
$$;

-- Whether the tutor may help the caller on a case: not while a seminar assignment on that
-- case, without the tutor, can still take the caller's work.
create function public.seminar_tutor_allowed_for(p_user uuid, p_case_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select not exists (
    select 1 from public.seminar_assignments a
    join public.seminar_members m on m.group_id = a.group_id and m.user_id = p_user and m.left_at is null
    where a.case_id = p_case_id and not a.tutor_allowed and a.opens_at <= now()
      and (a.deadline > now() or (a.late_policy = 'accept'
           and not exists (select 1 from public.case_submissions s where s.assignment_id = a.id and s.user_id = p_user))))
$$;

create function public.seminar_tutor_allowed(p_case_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select public.seminar_tutor_allowed_for(auth.uid(), p_case_id)
$$;

-- Grades of record -----------------------------------------------------------------------

-- The submission a staff member grades: visible to them by the seminar rule, AI-graded.
create function public.seminar_gradable(p_submission_id uuid) returns public.case_submissions
language plpgsql volatile security definer set search_path = '' as $$
declare
  s public.case_submissions;
begin
  perform public.seminar_require_user();
  select * into s from public.case_submissions x where x.id = p_submission_id for update;
  if not found or s.assignment_id is null or not public.seminar_staff_sees(s.assignment_id, s.user_id, s.submitted_at) then
    raise sqlstate 'PT404' using message = 'Soluția nu există sau nu o poți vedea.';
  end if;
  if s.status <> 'graded' or jsonb_typeof(s.score_breakdown) is distinct from 'array' then
    raise exception 'Soluția nu a fost încă evaluată de AI.' using errcode = '22023';
  end if;
  return s;
end
$$;

create function public.seminar_check_comment(p_comment text) returns text
language plpgsql immutable set search_path = '' as $$
begin
  if char_length(coalesce(p_comment, '')) > 4000 then
    raise exception 'Comentariul poate avea cel mult 4000 de caractere.' using errcode = '22023';
  end if;
  return nullif(btrim(coalesce(p_comment, '')), '');
end
$$;

-- Confirms the AI's grade as the grade of record, with an optional comment.
create function public.seminar_confirm_grade(p_submission_id uuid, p_comment text default null) returns public.seminar_grades
language plpgsql volatile security definer set search_path = '' as $$
declare
  s public.case_submissions := public.seminar_gradable(p_submission_id);
  note text := public.seminar_check_comment(p_comment);
  crit jsonb;
  g public.seminar_grades;
begin
  select jsonb_agg(jsonb_build_object('id', x ->> 'id', 'label', x ->> 'label', 'score', (x ->> 'score')::numeric,
           'max', (x ->> 'max')::numeric, 'ai_score', (x ->> 'score')::numeric, 'comment', null) order by o)
  into crit from jsonb_array_elements(s.score_breakdown) with ordinality t(x, o);
  insert into public.seminar_grades (submission_id, assignment_id, student_id, source, criteria, score, ai_score, comment, graded_by)
  values (s.id, s.assignment_id, s.user_id, 'ai_confirmed', crit, s.score_value, s.score_value, note, auth.uid())
  on conflict (submission_id) do update set source = excluded.source, criteria = excluded.criteria, score = excluded.score,
    ai_score = excluded.ai_score, comment = excluded.comment, graded_by = excluded.graded_by, graded_at = now()
  returning * into g;
  return g;
end
$$;

-- Sets the staff's own score (and comment) on some criteria; the others keep the AI's.
-- p_criteria: [{"id":"2.1","score":7.5,"comment":"…"}, …].
create function public.seminar_set_grade(p_submission_id uuid, p_criteria jsonb, p_comment text default null)
returns public.seminar_grades
language plpgsql volatile security definer set search_path = '' as $$
declare
  s public.case_submissions := public.seminar_gradable(p_submission_id);
  note text := public.seminar_check_comment(p_comment);
  prev public.seminar_grades;
  base jsonb;
  item jsonb;
  cur jsonb;
  pos int;
  v numeric;
  total numeric;
  g public.seminar_grades;
begin
  if jsonb_typeof(p_criteria) is distinct from 'array' then
    raise exception 'Trimite notele pe criterii ca listă.' using errcode = '22023';
  end if;
  -- Start from the current grade of record, else from the AI's.
  select * into prev from public.seminar_grades where submission_id = s.id;
  if found then
    base := prev.criteria;
  else
    select jsonb_agg(jsonb_build_object('id', x ->> 'id', 'label', x ->> 'label', 'score', (x ->> 'score')::numeric,
             'max', (x ->> 'max')::numeric, 'ai_score', (x ->> 'score')::numeric, 'comment', null) order by o)
    into base from jsonb_array_elements(s.score_breakdown) with ordinality t(x, o);
  end if;
  for item in select * from jsonb_array_elements(p_criteria) loop
    select o - 1, x into pos, cur from jsonb_array_elements(base) with ordinality t(x, o) where x ->> 'id' = item ->> 'id';
    if pos is null then
      raise exception 'Criteriul „%” nu există în grila de evaluare.', left(coalesce(item ->> 'id', ''), 20) using errcode = '22023';
    end if;
    begin
      v := (item ->> 'score')::numeric;
    exception when others then
      v := null;
    end;
    if v is null or v < 0 or v > (cur ->> 'max')::numeric or v * 2 <> trunc(v * 2) then
      raise exception 'Nota pentru „%” trebuie să fie între 0 și %, în pași de 0,5.', cur ->> 'label', cur ->> 'max' using errcode = '22023';
    end if;
    if char_length(coalesce(item ->> 'comment', '')) > 4000 then
      raise exception 'Comentariul poate avea cel mult 4000 de caractere.' using errcode = '22023';
    end if;
    base := jsonb_set(base, array[pos::text], cur || jsonb_build_object('score', v,
      'comment', case when item ? 'comment' then to_jsonb(nullif(btrim(coalesce(item ->> 'comment', '')), '')) else cur -> 'comment' end));
    pos := null;
  end loop;
  select sum((x ->> 'score')::numeric) into total from jsonb_array_elements(base) x;
  insert into public.seminar_grades (submission_id, assignment_id, student_id, source, criteria, score, ai_score, comment, graded_by)
  values (s.id, s.assignment_id, s.user_id, 'staff', base, least(greatest(total, 0), 100), s.score_value,
          coalesce(note, prev.comment), auth.uid())
  on conflict (submission_id) do update set source = excluded.source, criteria = excluded.criteria, score = excluded.score,
    ai_score = excluded.ai_score, comment = excluded.comment, graded_by = excluded.graded_by, graded_at = now()
  returning * into g;
  return g;
end
$$;

-- Every change of a grade of record is audited; the student is told.
create function public.seminar_grades_audit() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  t text;
begin
  insert into public.seminar_grade_audit (submission_id, assignment_id, actor_id, action, old_values, new_values)
  values (coalesce(new.submission_id, old.submission_id), coalesce(new.assignment_id, old.assignment_id), auth.uid(),
          lower(tg_op), case when tg_op <> 'INSERT' then to_jsonb(old) end, case when tg_op <> 'DELETE' then to_jsonb(new) end);
  if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.score is distinct from old.score or new.comment is distinct from old.comment
                            or new.criteria is distinct from old.criteria) then
    select a.title into t from public.seminar_assignments a where a.id = new.assignment_id;
    insert into public.seminar_notifications (user_id, kind, group_id, assignment_id, submission_id, body)
    select new.student_id, 'grade_confirmed', a.group_id, a.id, new.submission_id,
           format('Asistentul a %s nota temei „%s”: %s/100.', case when tg_op = 'INSERT' then 'confirmat' else 'actualizat' end,
                  t, replace(trim(trailing '.' from trim(trailing '0' from new.score::text)), '.', ','))
    from public.seminar_assignments a where a.id = new.assignment_id;
  end if;
  return null;
end
$$;
create trigger seminar_grades_audit after insert or update or delete on public.seminar_grades
  for each row execute function public.seminar_grades_audit();

create function public.seminar_grade_audit_append_only() returns trigger
language plpgsql set search_path = '' as $$
begin
  raise exception 'the grade audit is append-only' using errcode = '42501';
end
$$;
create trigger seminar_grade_audit_append_only before update or delete on public.seminar_grade_audit
  for each row execute function public.seminar_grade_audit_append_only();

-- Reading the group's work ---------------------------------------------------------------

-- Each student's latest visible work on each assignment, as the staff table shows it.
-- Internal: the public functions check the caller first.
create function public.seminar_work(p_group_id uuid, p_student uuid default null)
returns table (student_id uuid, assignment_id uuid, state text, submission_id uuid, exam_id uuid, submitted_at timestamptz,
  late boolean, ai_score numeric, grade numeric, grade_source text, grade_comment text, graded_at timestamptz, attempts int,
  criteria jsonb, grile_results jsonb)
language sql stable security definer set search_path = '' as $$
  with people as (
    select distinct m.user_id from public.seminar_members m
    where m.group_id = p_group_id and (p_student is null or m.user_id = p_student)
  ), visible_subs as (
    select s.*, row_number() over (partition by s.assignment_id, s.user_id order by s.submitted_at desc, s.id) as rn,
           count(*) over (partition by s.assignment_id, s.user_id) as n
    from public.case_submissions s join public.seminar_assignments a on a.id = s.assignment_id
    join people p on p.user_id = s.user_id
    where a.group_id = p_group_id and exists (
      select 1 from public.seminar_members m where m.group_id = p_group_id and m.user_id = s.user_id
        and m.joined_at <= s.submitted_at and (m.left_at is null or s.submitted_at < m.left_at))
  ), visible_exams as (
    select e.*, row_number() over (partition by e.assignment_id, e.user_id order by e.started_at desc, e.id) as rn,
           count(*) over (partition by e.assignment_id, e.user_id) as n
    from public.grile_exams e join public.seminar_assignments a on a.id = e.assignment_id
    join people p on p.user_id = e.user_id
    where a.group_id = p_group_id and exists (
      select 1 from public.seminar_members m where m.group_id = p_group_id and m.user_id = e.user_id
        and m.joined_at <= e.started_at and (m.left_at is null or e.started_at < m.left_at))
  )
  select p.user_id, a.id,
         case when a.kind = 'case' then
                case when s.id is null then
                       case when exists (select 1 from casus_meta.tutor_turns t where t.user_id = p.user_id and t.case_id = a.case_id
                                           and t.created_at >= a.created_at) then 'in_progress' else 'not_started' end
                     when g.submission_id is not null then 'confirmed'
                     when s.status = 'graded' then 'ai_graded'
                     else 'submitted' end
              else case when e.id is null then 'not_started' when e.finished_at is null then 'in_progress' else 'scored' end
         end,
         s.id, e.id,
         coalesce(s.submitted_at, e.finished_at),
         coalesce(s.late, e.late, false),
         s.score_value,
         case when a.kind = 'case' then g.score
              when e.finished_at is not null then round(100.0 * e.correct_count / e.question_count, 2) end,
         case when g.submission_id is not null then g.source when e.finished_at is not null then 'grile' end,
         g.comment, g.graded_at,
         coalesce(s.n, e.n, 0)::int,
         coalesce(g.criteria, s.score_breakdown),
         e.results
  from people p
  cross join public.seminar_assignments a
  left join visible_subs s on s.assignment_id = a.id and s.user_id = p.user_id and s.rn = 1
  left join visible_exams e on e.assignment_id = a.id and e.user_id = p.user_id and e.rn = 1
  left join public.seminar_grades g on g.submission_id = s.id
  where a.group_id = p_group_id
$$;

create function public.seminar_gradebook(p_group_id uuid)
returns table (student_id uuid, username text, name text, active boolean, assignment_id uuid, assignment_title text,
  kind text, deadline timestamptz, state text, submission_id uuid, exam_id uuid, submitted_at timestamptz, late boolean,
  ai_score numeric, grade numeric, grade_source text, attempts int)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.seminar_require_staff(p_group_id);
  return query
  select w.student_id, p.username, p.name,
         exists (select 1 from public.seminar_members m where m.group_id = p_group_id and m.user_id = w.student_id and m.left_at is null),
         a.id, a.title, a.kind, a.deadline, w.state, w.submission_id, w.exam_id, w.submitted_at, w.late, w.ai_score,
         w.grade, w.grade_source, w.attempts
  from public.seminar_work(p_group_id) w
  join public.seminar_assignments a on a.id = w.assignment_id
  join public.user_profiles p on p.id = w.student_id
  order by lower(p.name), lower(p.username), w.student_id, a.deadline, a.created_at;
end
$$;

-- Statistics of one assignment: the grade of record (else the AI's score) of each
-- student's latest graded work.
create function public.seminar_assignment_stats(p_assignment_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  a public.seminar_assignments;
  result jsonb;
begin
  perform public.seminar_require_user();
  select * into a from public.seminar_assignments x where x.id = p_assignment_id;
  if not found or not public.seminar_is_staff(a.group_id) then
    raise sqlstate 'PT404' using message = 'Tema nu există.';
  end if;
  with w as (
    select * from public.seminar_work(a.group_id) x where x.assignment_id = a.id
  ), scored as (
    select coalesce(w.grade, w.ai_score) as v, w.criteria, w.grile_results from w
    where coalesce(w.grade, w.ai_score) is not null
  ), crit as (
    select c ->> 'id' as id, min(c ->> 'label') as label,
           round(avg(100.0 * (c ->> 'score')::numeric / nullif((c ->> 'max')::numeric, 0)), 1) as pct
    from scored, jsonb_array_elements(case when jsonb_typeof(scored.criteria) = 'array' then scored.criteria else '[]' end) c
    where a.kind = 'case'
    group by 1
    union all
    select r ->> 'category_id', min(coalesce(lc.name, r ->> 'category_id')),
           round(100.0 * sum((r ->> 'correct')::numeric) / nullif(sum((r ->> 'total')::numeric), 0), 1)
    from scored, jsonb_array_elements(case when jsonb_typeof(scored.grile_results) = 'array' then scored.grile_results else '[]' end) r
    left join public.law_categories lc on lc.id = r ->> 'category_id'
    where a.kind = 'grile'
    group by 1
  )
  select jsonb_build_object(
    'assignment_id', a.id, 'kind', a.kind,
    'members', (select count(*) from public.seminar_members m where m.group_id = a.group_id and m.left_at is null),
    'handed_in', (select count(*) from w where w.submission_id is not null or w.exam_id is not null),
    'graded', (select count(*) from scored),
    'median', (select percentile_cont(0.5) within group (order by v) from scored),
    'mean', (select round(avg(v), 2) from scored),
    'distribution', (select jsonb_agg(jsonb_build_object('from', b * 10, 'to', case when b = 9 then 100 else b * 10 + 9 end,
                       'count', (select count(*) from scored where least(floor(v / 10), 9) = b)) order by b)
                     from generate_series(0, 9) b),
    'weakest', coalesce((select jsonb_agg(jsonb_build_object('id', id, 'label', label, 'average_pct', pct) order by pct, id)
                         from (select * from crit where pct is not null order by pct, id limit 3) lowest), '[]'::jsonb))
  into result;
  return result;
end
$$;

-- The submission view's context: who, which assignment, tutor rounds used for it.
create function public.seminar_submission_context(p_submission_id uuid)
returns table (submission_id uuid, assignment_id uuid, student_id uuid, username text, name text,
  tutor_rounds_used int, attempt int, attempts_allowed int)
language plpgsql stable security definer set search_path = '' as $$
declare
  s public.case_submissions;
begin
  perform public.seminar_require_user();
  select * into s from public.case_submissions x where x.id = p_submission_id;
  if not found or s.assignment_id is null or not public.seminar_staff_sees(s.assignment_id, s.user_id, s.submitted_at) then
    raise sqlstate 'PT404' using message = 'Soluția nu există sau nu o poți vedea.';
  end if;
  return query
  select s.id, a.id, s.user_id, p.username, p.name,
         (select count(*)::int from casus_meta.tutor_turns t
          where t.user_id = s.user_id and t.case_id = a.case_id and t.role = 'user'
            and t.created_at >= greatest(a.created_at, (select max(m.joined_at) from public.seminar_members m
                                                         where m.group_id = a.group_id and m.user_id = s.user_id and m.joined_at <= s.submitted_at))
            and t.created_at <= s.submitted_at),
         (select count(*)::int from public.case_submissions x where x.assignment_id = a.id and x.user_id = s.user_id and x.submitted_at <= s.submitted_at),
         a.revisions_allowed + 1
  from public.seminar_assignments a join public.user_profiles p on p.id = s.user_id
  where a.id = s.assignment_id;
end
$$;

-- The student's assignments: open ones of their groups and any they handed work in for.
create function public.seminar_my_assignments()
returns table (assignment_id uuid, group_id uuid, group_name text, kind text, title text, instructions text,
  case_id uuid, case_code text, case_title text, opens_at timestamptz, deadline timestamptz, strictness int,
  tutor_allowed boolean, revisions_allowed int, late_policy text, grile_count int, grile_minutes int, attempts_used int,
  submission_id uuid, exam_id uuid, submitted_at timestamptz, late boolean, state text, ai_score numeric, grade numeric,
  grade_source text, grade_comment text, graded_at timestamptz, can_submit boolean)
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := public.seminar_require_user();
begin
  return query
  select a.id, g.id, g.name, a.kind, a.title, a.instructions, a.case_id, c.case_code, c.title, a.opens_at, a.deadline,
         a.strictness, a.tutor_allowed, a.revisions_allowed, a.late_policy,
         coalesce(cardinality(a.grile_question_ids), a.grile_count), a.grile_minutes, w.attempts,
         w.submission_id, w.exam_id, w.submitted_at, w.late, w.state, w.ai_score, w.grade, w.grade_source, w.grade_comment,
         w.graded_at,
         active.yes and a.opens_at <= now() and w.attempts <= a.revisions_allowed
           and (a.deadline > now() or a.late_policy = 'accept')
  from public.seminar_groups g
  cross join lateral (select exists (select 1 from public.seminar_members m where m.group_id = g.id and m.user_id = uid and m.left_at is null) as yes) active
  join public.seminar_work(g.id, uid) w on true
  join public.seminar_assignments a on a.id = w.assignment_id
  left join public.cases c on c.id = a.case_id
  where exists (select 1 from public.seminar_members m where m.group_id = g.id and m.user_id = uid)
    and ((active.yes and a.opens_at <= now()) or w.submission_id is not null or w.exam_id is not null)
  order by a.deadline, a.created_at;
end
$$;

-- Grants and realtime --------------------------------------------------------------------

-- Internal helpers and trigger functions are not API calls.
revoke execute on function public.seminar_new_code(), public.seminar_code_group(text), public.seminar_check_work(uuid, uuid, text, uuid),
  public.case_submissions_seminar_check(), public.seminar_assignments_notify(), public.seminar_notify_deadlines(uuid),
  public.seminar_gradable(uuid), public.seminar_grades_audit(), public.seminar_grade_audit_append_only(),
  public.seminar_work(uuid, uuid), public.seminar_tutor_allowed_for(uuid, uuid), public.seminar_require_user(),
  public.seminar_require_staff(uuid), public.seminar_require_owner(uuid)
  from public, anon, authenticated;
grant execute on function public.seminar_notify_deadlines(uuid), public.seminar_tutor_allowed_for(uuid, uuid) to service_role;
-- Used inside policies the caller's role evaluates.
revoke execute on function public.seminar_is_staff(uuid), public.seminar_is_member(uuid),
  public.seminar_staff_sees(uuid, uuid, timestamptz), public.seminar_when(timestamptz), public.seminar_parse_time(text),
  public.seminar_check_comment(text) from public, anon;
grant execute on function public.seminar_is_staff(uuid), public.seminar_is_member(uuid),
  public.seminar_staff_sees(uuid, uuid, timestamptz) to authenticated, service_role;
revoke execute on function public.seminar_when(timestamptz), public.seminar_parse_time(text), public.seminar_check_comment(text)
  from authenticated;

revoke execute on function public.seminar_create_group(text, text, text, int, text), public.seminar_rotate_code(uuid, text),
  public.seminar_preview(text), public.seminar_join(text), public.seminar_leave(uuid), public.seminar_remove_member(uuid, uuid),
  public.seminar_add_teacher(uuid, text), public.seminar_remove_teacher(uuid, uuid), public.seminar_people(uuid),
  public.seminar_create_assignment(uuid, text, text, text, uuid, text, text, int, boolean, int, text, uuid[], text[], int, int),
  public.seminar_notifications_sync(), public.seminar_grile_start(uuid), public.seminar_tutor_allowed(uuid),
  public.seminar_confirm_grade(uuid, text), public.seminar_set_grade(uuid, jsonb, text), public.seminar_gradebook(uuid),
  public.seminar_assignment_stats(uuid), public.seminar_submission_context(uuid), public.seminar_my_assignments()
  from public, anon;
grant execute on function public.seminar_create_group(text, text, text, int, text), public.seminar_rotate_code(uuid, text),
  public.seminar_preview(text), public.seminar_join(text), public.seminar_leave(uuid), public.seminar_remove_member(uuid, uuid),
  public.seminar_add_teacher(uuid, text), public.seminar_remove_teacher(uuid, uuid), public.seminar_people(uuid),
  public.seminar_create_assignment(uuid, text, text, text, uuid, text, text, int, boolean, int, text, uuid[], text[], int, int),
  public.seminar_notifications_sync(), public.seminar_grile_start(uuid), public.seminar_tutor_allowed(uuid),
  public.seminar_confirm_grade(uuid, text), public.seminar_set_grade(uuid, jsonb, text), public.seminar_gradebook(uuid),
  public.seminar_assignment_stats(uuid), public.seminar_submission_context(uuid), public.seminar_my_assignments()
  to authenticated, service_role;

-- Live: the staff table, the student's case page, notifications.
do $$
declare
  t text;
begin
  foreach t in array array['public.seminar_groups', 'public.seminar_members', 'public.seminar_staff', 'public.seminar_assignments',
                           'public.seminar_grades', 'public.seminar_notifications', 'public.grile_exams'] loop
    if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname || '.' || tablename = t) then
      execute format('alter publication supabase_realtime add table %s', t);
    end if;
  end loop;
end
$$;
select realtime.sync_triggers();
