-- Leaderboard (issue 20): points, weekly and all-time boards, global and per university,
-- and the opt-out "Nu mă afișa în clasamente". Relies on 001-003 (profiles, completions)
-- and the grile migration (grile_exams, grile_exam_answers).
--
-- Scoring (one rule, in leaderboard_ranking below):
--   * 10 points per completed case: the first submission scoring above 50 (case_completions,
--     the spec's completion), dated by that submission. Only cases a moderator has verified
--     count (the curriculum and reviewed generated cases): a student's own unverified case
--     would otherwise be points for free. A case counts once, ever.
--   * 1 point per grilă answered correctly (exactly the correct set) in a finished exam
--     simulation, dated by the exam's end. A grilă counts once per student, the first time:
--     retaking a simulation on questions already known earns nothing, so the board rewards
--     learning new material, not repetition (leaderboard_grile_points keeps that first time).
--   * Weekly = points earned since Monday 00:00 Europe/Bucharest; all-time = all of them.
--     All-time is the sum of the weeks.
--   * Ranks: points, then who reached them first (the earlier last earning), then the
--     username (case-insensitive, unique): every position is distinct and stable.
--
-- Privacy: the boards come only from leaderboard_top / leaderboard_around_me (SECURITY
-- DEFINER, signed-in callers only), which return rank, username, university code, points and
-- whether the row is the caller — never an id or an e-mail. A user with
-- hide_from_leaderboards is on nobody's board, not even as a neighbour; they see only their
-- own row (where they would be). public_profiles (003) honours it too; 003's leaderboard(),
-- which also exposed average scores, is dropped.

alter table public.user_profiles add column hide_from_leaderboards boolean not null default false;

-- The first time each student answered each grilă correctly in a finished exam. Written only
-- by the trigger below (and the backfill); no API role reads or writes it.
create table public.leaderboard_grile_points (
  user_id uuid not null references auth.users (id) on delete cascade,
  question_id uuid not null references public.grile_questions (id) on delete cascade,
  earned_at timestamptz not null,
  primary key (user_id, question_id)
);
create index leaderboard_grile_points_earned_idx on public.leaderboard_grile_points (earned_at);
create index case_completions_completed_idx on public.case_completions (completed_at);

revoke all on public.leaderboard_grile_points from public, anon, authenticated;
grant all on public.leaderboard_grile_points to service_role;
alter table public.leaderboard_grile_points enable row level security;

-- grile_exam_score answers is_correct for every question, then sets finished_at: when an exam
-- becomes finished, its correct questions are recorded (the earliest time is kept).
create function public.leaderboard_record_exam() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.leaderboard_grile_points (user_id, question_id, earned_at)
  select new.user_id, a.question_id, new.finished_at
  from public.grile_exam_answers a
  where a.exam_id = new.id and a.is_correct
  on conflict (user_id, question_id) do update set earned_at = excluded.earned_at
    where excluded.earned_at < public.leaderboard_grile_points.earned_at;
  return null;
end
$$;
create trigger grile_exams_leaderboard after update of finished_at on public.grile_exams
  for each row when (old.finished_at is null and new.finished_at is not null)
  execute function public.leaderboard_record_exam();

-- Exams finished before this migration.
insert into public.leaderboard_grile_points (user_id, question_id, earned_at)
select e.user_id, a.question_id, min(e.finished_at)
from public.grile_exams e join public.grile_exam_answers a on a.exam_id = e.id
where e.finished_at is not null and a.is_correct
group by e.user_id, a.question_id
on conflict do nothing;

-- Start of a board's window: Monday 00:00 in Bucharest for 'week', the beginning of time for 'all'.
create function public.leaderboard_since(p_period text) returns timestamptz
language plpgsql stable set search_path = '' as $$
begin
  case p_period
    when 'week' then
      return date_trunc('week', now() at time zone 'Europe/Bucharest') at time zone 'Europe/Bucharest';
    when 'all' then
      return '-infinity'::timestamptz;
    else
      raise exception 'Perioada clasamentului trebuie să fie „week” sau „all”' using errcode = '22023';
  end case;
end
$$;

-- The ranking (internal: holds user ids, callable by no API role). Everyone with points who
-- has not opted out, plus p_include (the caller asking for their own position, even with no
-- points or opted out); with p_scoped, only the profiles of university p_university.
create function public.leaderboard_ranking(p_since timestamptz, p_scoped boolean, p_university text, p_include uuid)
returns table (user_id uuid, username text, university_code text, points int, rank int)
language sql stable security definer set search_path = '' as $$
  with earned as (
    select cc.user_id, 10 as points, cc.completed_at as at
    from public.case_completions cc join public.cases c on c.id = cc.case_id
    where c.verified and cc.completed_at >= p_since
    union all
    select g.user_id, 1, g.earned_at from public.leaderboard_grile_points g where g.earned_at >= p_since
  ), totals as (
    select e.user_id, sum(e.points)::int as points, max(e.at) as reached_at from earned e group by e.user_id
  )
  select p.id, p.username, p.university_code, coalesce(t.points, 0),
         (row_number() over (order by coalesce(t.points, 0) desc, t.reached_at nulls last, lower(p.username), p.id))::int
  from public.user_profiles p
  left join totals t on t.user_id = p.id
  where (p.id = p_include or (t.points > 0 and not p.hide_from_leaderboards))
    and (not p_scoped or p.university_code = p_university)
$$;

-- The caller's id, university and opt-out; 42501 for a caller who is not signed in.
create function public.leaderboard_caller(p_scope text, out uid uuid, out university text, out hidden boolean)
language plpgsql stable security definer set search_path = '' as $$
begin
  uid := auth.uid();
  if uid is null then
    raise exception 'Trebuie să fii autentificat' using errcode = '42501';
  end if;
  if p_scope is null or p_scope not in ('global', 'university') then
    raise exception 'Clasamentul este „global” sau „university”' using errcode = '22023';
  end if;
  select p.university_code, p.hide_from_leaderboards into university, hidden from public.user_profiles p where p.id = uid;
  hidden := coalesce(hidden, false);
end
$$;

-- The top of a board: p_period 'week' | 'all', p_scope 'global' | 'university' (the
-- caller's), at most p_limit rows (1-100).
create function public.leaderboard_top(p_period text default 'week', p_scope text default 'global', p_limit int default 50)
returns table (rank int, username text, university_code text, points int, is_self boolean)
language plpgsql stable security definer set search_path = '' as $$
declare
  me record;
  since timestamptz;
begin
  select * into me from public.leaderboard_caller(p_scope);
  since := public.leaderboard_since(p_period);
  return query
  select r.rank, r.username, r.university_code, r.points, r.user_id = me.uid
  from public.leaderboard_ranking(since, p_scope = 'university', me.university, null) r
  order by r.rank
  limit least(greatest(coalesce(p_limit, 50), 1), 100);
end
$$;

-- "Poziția ta": the caller with the five above and the five below. A caller who opted out
-- gets only their own row (the position they would have); nobody else sees it.
create function public.leaderboard_around_me(p_period text default 'week', p_scope text default 'global')
returns table (rank int, username text, university_code text, points int, is_self boolean)
language plpgsql stable security definer set search_path = '' as $$
declare
  me record;
  since timestamptz;
begin
  select * into me from public.leaderboard_caller(p_scope);
  since := public.leaderboard_since(p_period);
  return query
  with board as (
    select r.* from public.leaderboard_ranking(since, p_scope = 'university', me.university, me.uid) r
  ), mine as (
    select b.rank from board b where b.user_id = me.uid
  )
  select b.rank, b.username, b.university_code, b.points, b.user_id = me.uid
  from board b, mine m
  where b.rank between m.rank - 5 and m.rank + 5
    and (not me.hidden or b.user_id = me.uid)
  order by b.rank;
end
$$;

-- The opt-out, saved by the user for themselves; returns the stored value.
create function public.set_leaderboard_hidden(p_hidden boolean) returns boolean
language plpgsql volatile security definer set search_path = '' as $$
declare
  result boolean;
begin
  if auth.uid() is null then
    raise exception 'Trebuie să fii autentificat' using errcode = '42501';
  end if;
  update public.user_profiles set hide_from_leaderboards = coalesce(p_hidden, false)
  where id = auth.uid() returning hide_from_leaderboards into result;
  if not found then
    raise exception 'Profilul nu există' using errcode = 'P0002';
  end if;
  return result;
end
$$;

-- 003's leaderboard() listed every student's submission count and average score to any
-- signed-in user and knew nothing of the opt-out: the boards above replace it. The username
-- view honours the opt-out.
drop function public.leaderboard(int);

create or replace view public.public_profiles as
select id, username, university_code, created_at from public.user_profiles where not hide_from_leaderboards;

revoke execute on function public.leaderboard_record_exam(), public.leaderboard_since(text),
  public.leaderboard_ranking(timestamptz, boolean, text, uuid), public.leaderboard_caller(text)
  from public, anon, authenticated, service_role;
revoke execute on function public.leaderboard_top(text, text, int), public.leaderboard_around_me(text, text),
  public.set_leaderboard_hidden(boolean) from public, anon, service_role;
grant execute on function public.leaderboard_top(text, text, int), public.leaderboard_around_me(text, text),
  public.set_leaderboard_hidden(boolean) to authenticated;
