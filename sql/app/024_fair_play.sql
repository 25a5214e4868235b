-- Fair play and abuse limits (issue 32).
--
-- 1. Grile points nobody can farm. A student's first answer to a grilă is the only one that
--    can score: grile_seen keeps, per student and question, when and how the student first
--    answered it (in practice, where the key is revealed at once, or in a finished exam,
--    after which the review shows it). A point is earned only when that first answer was
--    exactly right in a finished exam simulation; a grilă whose key the student saw in
--    practice, or got wrong (or left blank) in an exam, never scores again. Exams draw the
--    grile the student has not answered before. Practice reveals keys of at most 60 new
--    grile an hour per student, so reading the keys of someone's running exam through a
--    second account takes hours, not a second. Anonymous accounts earn nothing, start no
--    exam and appear on no board.
-- 2. Feedback: at most casus_meta.feedback_limits.per_ip rows an hour per client address
--    and .total rows an hour in all (the server writes FEEDBACK_RATE_LIMIT_PER_IP and
--    FEEDBACK_RATE_LIMIT_TOTAL there at start), for the RPC and the table alike; over it,
--    429 with a Romanian message.
-- 5. An admin role that requires MFA has no admin power at aal1, enrolled or not: the app
--    asks them to enrol, then to confirm with a code.
-- 8. public_profiles: usernames and university codes only, to signed-in non-anonymous users.
-- 9. Anonymous visitors: at most 20 grile practised (their answers and cards), no exam;
--    everything goes with the account (foreign keys cascade) and nothing of it scores after
--    the account is converted.
-- 11. "Simularea nu există" and the other not-found errors of the RPCs answer 404
--    (PostgREST's RAISE SQLSTATE 'PT404'; P0002 is a 500 in PostgREST's table).
-- 12. Extension functions are not callable by the API roles.

-- 1, 9: grile ----------------------------------------------------------------------------

create table public.grile_seen (
  user_id uuid not null references auth.users (id) on delete cascade,
  question_id uuid not null references public.grile_questions (id) on delete cascade,
  seen_at timestamptz not null,
  via text not null check (via in ('practice', 'exam')),
  -- The first answer was exactly the correct set.
  first_correct boolean not null,
  primary key (user_id, question_id)
);
create index grile_seen_practice_idx on public.grile_seen (user_id, seen_at) where via = 'practice';
create index grile_seen_question_idx on public.grile_seen (question_id);
revoke all on public.grile_seen from public, anon, authenticated;
grant all on public.grile_seen to service_role;
alter table public.grile_seen enable row level security;
select public.forbid_anonymous_writes('public.grile_seen');

-- History so far: the earliest answer of each student to each grilă.
insert into public.grile_seen (user_id, question_id, seen_at, via, first_correct)
select distinct on (x.user_id, x.question_id) x.user_id, x.question_id, x.at, x.via, x.ok
from (
  select t.user_id, t.question_id, t.answered_at as at, 'practice' as via, t.is_correct as ok from public.grile_attempts t
  union all
  select e.user_id, a.question_id, e.finished_at, 'exam', coalesce(a.is_correct, false)
  from public.grile_exams e join public.grile_exam_answers a on a.exam_id = e.id
  where e.finished_at is not null
) x
order by x.user_id, x.question_id, x.at, x.via desc;

-- Points already recorded are recounted by the new rule.
delete from public.leaderboard_grile_points g
where not exists (select 1 from public.grile_seen s where s.user_id = g.user_id and s.question_id = g.question_id
                    and s.via = 'exam' and s.first_correct)
   or exists (select 1 from auth.users u where u.id = g.user_id and u.is_anonymous);

create function public.grile_caller_anonymous() returns boolean
language sql stable set search_path = '' as $$
  select coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false)
$$;

-- Records an answer, scores it, keeps the FSRS card of the outcome and reveals the key
-- (017's grile_answer, with the limits on keys revealed and the first answer recorded).
create or replace function public.grile_answer(p_question_id uuid, p_chosen text[], p_if_wrong jsonb, p_if_right jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  q public.grile_questions;
  v_chosen text[] := public.grile_letters(p_chosen);
  ok boolean;
  card jsonb;
  wrong_iv interval := public.grile_card_interval(p_if_wrong);
  right_iv interval := public.grile_card_interval(p_if_right);
begin
  if v_chosen is null then
    raise exception 'Alege cel puțin o variantă (a, b sau c)' using errcode = '22023';
  end if;
  select * into q from public.grile_questions where id = p_question_id;
  if not found then
    raise sqlstate 'PT404' using message = 'Grila nu există';
  end if;
  if public.grile_in_running_exam(uid, q.id) then
    raise exception 'Grila face parte dintr-o simulare în desfășurare' using errcode = '42501';
  end if;
  if wrong_iv > right_iv then
    raise exception 'a wrong answer must not be scheduled later than a right one' using errcode = '22023';
  end if;
  -- Serialises one student's answers, so the counts below hold.
  perform pg_advisory_xact_lock(hashtextextended('grile_answer:' || uid::text, 0));
  if not exists (select 1 from public.grile_seen s where s.user_id = uid and s.question_id = q.id) then
    if public.grile_caller_anonymous()
       and (select count(*) from public.grile_seen s where s.user_id = uid) >= 20 then
      raise exception 'Ca vizitator poți rezolva cel mult 20 de grile. Creează-ți un cont ca să continui.' using errcode = '42501';
    end if;
    if (select count(*) from public.grile_seen s where s.user_id = uid and s.via = 'practice'
          and s.seen_at > now() - interval '1 hour') >= 60 then
      raise sqlstate 'PGRST' using
        message = json_build_object('code', 'grile_rate_limit',
          'message', 'Ai deschis 60 de grile noi în ultima oră. Recapitulează-le pe cele rezolvate sau revino mai târziu.')::text,
        detail = json_build_object('status', 429, 'headers', json_build_object())::text;
    end if;
  end if;
  ok := v_chosen = q.correct;
  insert into public.grile_seen (user_id, question_id, seen_at, via, first_correct)
  values (uid, q.id, now(), 'practice', ok) on conflict do nothing;
  -- An anonymous visitor's history stays small: its last 100 attempts.
  if public.grile_caller_anonymous() then
    delete from public.grile_attempts t where t.user_id = uid and t.id not in
      (select t2.id from public.grile_attempts t2 where t2.user_id = uid order by t2.id desc limit 99);
  end if;
  insert into public.grile_attempts (user_id, question_id, chosen, is_correct) values (uid, q.id, v_chosen, ok);
  card := case when ok then p_if_right else p_if_wrong end;
  insert into public.grile_cards as c (user_id, question_id, due, stability, difficulty, elapsed_days, scheduled_days,
    learning_steps, reps, lapses, state, last_review, last_correct)
  values (uid, q.id, (card ->> 'due')::timestamptz, (card ->> 'stability')::float8, (card ->> 'difficulty')::float8,
    (card ->> 'elapsed_days')::int, (card ->> 'scheduled_days')::int, coalesce((card ->> 'learning_steps')::int, 0),
    (card ->> 'reps')::int, (card ->> 'lapses')::int, (card ->> 'state')::smallint, (card ->> 'last_review')::timestamptz, ok)
  on conflict (user_id, question_id) do update set due = excluded.due, stability = excluded.stability,
    difficulty = excluded.difficulty, elapsed_days = excluded.elapsed_days, scheduled_days = excluded.scheduled_days,
    learning_steps = excluded.learning_steps, reps = excluded.reps, lapses = excluded.lapses, state = excluded.state,
    last_review = excluded.last_review, last_correct = excluded.last_correct;
  return jsonb_build_object('is_correct', ok, 'chosen', to_jsonb(v_chosen), 'correct', to_jsonb(q.correct),
    'explanations', to_jsonb(q.explanations), 'citations', q.citations, 'due', card ->> 'due');
end
$$;

-- Starts an exam (017's grile_exam_start): the grile the student never answered come first;
-- anonymous visitors start none.
create or replace function public.grile_exam_start(p_domain text default null, p_categories text[] default null,
  p_level text default null, p_count int default 30, p_minutes int default 45)
returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
  open_id uuid;
  n int;
begin
  if public.grile_caller_anonymous() then
    raise exception 'Simularea de examen este disponibilă doar cu un cont. Creează-ți unul ca să o începi.' using errcode = '42501';
  end if;
  if coalesce(p_count, 30) not between 1 and 100 then
    raise exception 'Numărul de grile trebuie să fie între 1 și 100' using errcode = '22023';
  end if;
  if coalesce(p_minutes, 45) not between 1 and 240 then
    raise exception 'Durata trebuie să fie între 1 și 240 de minute' using errcode = '22023';
  end if;
  for open_id in select id from public.grile_exams where user_id = uid and finished_at is null loop
    perform public.grile_exam_score(open_id);
  end loop;
  select count(*) into n from public.grile_questions q
  where q.retired_at is null and (p_domain is null or q.domain = p_domain)
    and (coalesce(cardinality(p_categories), 0) = 0 or q.category_id = any (p_categories))
    and (p_level is null or q.level = p_level);
  if n = 0 then
    raise sqlstate 'PT404' using message = 'Nu există grile pentru criteriile alese';
  end if;
  insert into public.grile_exams (user_id, domain, categories, level, duration_seconds, deadline, question_count)
  values (uid, p_domain, coalesce(p_categories, '{}'), p_level, coalesce(p_minutes, 45) * 60,
    now() + make_interval(mins => coalesce(p_minutes, 45)), least(n, coalesce(p_count, 30)))
  returning * into e;
  insert into public.grile_exam_answers (exam_id, position, question_id)
  select e.id, row_number() over (), s.id
  from (select q.id from public.grile_questions q
        where q.retired_at is null and (p_domain is null or q.domain = p_domain)
          and (coalesce(cardinality(p_categories), 0) = 0 or q.category_id = any (p_categories))
          and (p_level is null or q.level = p_level)
        order by exists (select 1 from public.grile_seen s where s.user_id = uid and s.question_id = q.id), random()
        limit e.question_count) s;
  return e;
end
$$;

create or replace function public.grile_exam_answer(p_exam_id uuid, p_question_id uuid, p_chosen text[]) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
  v_chosen text[] := public.grile_letters(p_chosen);
begin
  if p_chosen is not null and cardinality(p_chosen) > 0 and v_chosen is null then
    raise exception 'Variantele sunt a, b și c' using errcode = '22023';
  end if;
  select * into e from public.grile_exams where id = p_exam_id and user_id = uid for share;
  if not found then
    raise sqlstate 'PT404' using message = 'Simularea nu există';
  end if;
  if e.finished_at is not null or now() >= e.deadline then
    raise exception 'Simularea s-a încheiat; răspunsul nu mai poate fi modificat' using errcode = '42501';
  end if;
  update public.grile_exam_answers set chosen = v_chosen, answered_at = now()
  where exam_id = p_exam_id and question_id = p_question_id;
  if not found then
    raise sqlstate 'PT404' using message = 'Grila nu face parte din această simulare';
  end if;
end
$$;

create or replace function public.grile_exam_finish(p_exam_id uuid) returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
begin
  if not exists (select 1 from public.grile_exams where id = p_exam_id and user_id = uid) then
    raise sqlstate 'PT404' using message = 'Simularea nu există';
  end if;
  return public.grile_exam_score(p_exam_id);
end
$$;

create or replace function public.grile_exam_review(p_exam_id uuid)
returns table (question_position int, question_id uuid, code text, category_id text, subcategory text, level text,
  statement text, options text[], chosen text[], is_correct boolean, correct text[], explanations text[], citations jsonb)
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
begin
  select * into e from public.grile_exams x where x.id = p_exam_id and x.user_id = uid;
  if not found then
    raise sqlstate 'PT404' using message = 'Simularea nu există';
  end if;
  if e.finished_at is null then
    raise exception 'Răspunsurile corecte se văd după încheierea simulării' using errcode = '42501';
  end if;
  return query
  select a.position, q.id, q.code, q.category_id, q.subcategory, q.level, q.statement, q.options, a.chosen,
         coalesce(a.is_correct, false), q.correct, q.explanations, q.citations
  from public.grile_exam_answers a join public.grile_questions q on q.id = a.question_id
  where a.exam_id = p_exam_id
  order by a.position;
end
$$;

-- When an exam is finished, its grile become seen; those answered here for the first time,
-- exactly right, by a permanent account, earn their point.
create or replace function public.leaderboard_record_exam() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  with fresh as (
    insert into public.grile_seen (user_id, question_id, seen_at, via, first_correct)
    select new.user_id, a.question_id, new.finished_at, 'exam', coalesce(a.is_correct, false)
    from public.grile_exam_answers a
    where a.exam_id = new.id
    on conflict do nothing
    returning user_id, question_id, first_correct
  )
  insert into public.leaderboard_grile_points (user_id, question_id, earned_at)
  select f.user_id, f.question_id, new.finished_at
  from fresh f
  where f.first_correct and not exists (select 1 from auth.users u where u.id = f.user_id and u.is_anonymous)
  on conflict do nothing;
  return null;
end
$$;

-- 018's ranking without anonymous accounts (not even as the caller's own row).
create or replace function public.leaderboard_ranking(p_since timestamptz, p_scoped boolean, p_university text, p_include uuid)
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
  join auth.users u on u.id = p.id and not u.is_anonymous
  left join totals t on t.user_id = p.id
  where (p.id = p_include or (t.points > 0 and not p.hide_from_leaderboards))
    and (not p_scoped or p.university_code = p_university)
$$;

revoke execute on function public.grile_caller_anonymous() from public, anon, authenticated;

-- 2: feedback limits ----------------------------------------------------------------------

create table casus_meta.feedback_limits (
  only_row boolean primary key default true check (only_row),
  per_ip int not null check (per_ip >= 0),
  total int not null check (total >= 0)
);
insert into casus_meta.feedback_limits values (true, 5, 200);

-- One row per feedback accepted from an API caller, for the counts; kept an hour.
create table casus_meta.feedback_senders (
  client text not null,
  sent_at timestamptz not null default now()
);
create index feedback_senders_client_idx on casus_meta.feedback_senders (client, sent_at);
create index feedback_senders_sent_idx on casus_meta.feedback_senders (sent_at);

create function public.feedback_rate_limit() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  lim casus_meta.feedback_limits;
  who text := coalesce(nullif(current_setting('request.headers', true), '')::json ->> 'x-real-ip', 'unknown');
  over boolean := false;
  msg text;
begin
  -- API callers only (the owner and the service role write freely).
  if coalesce(auth.jwt() ->> 'role', '') not in ('anon', 'authenticated') then
    return new;
  end if;
  select * into lim from casus_meta.feedback_limits;
  perform pg_advisory_xact_lock(hashtextextended('feedback_rate_limit', 0));
  delete from casus_meta.feedback_senders where sent_at < now() - interval '1 hour';
  if (select count(*) from casus_meta.feedback_senders s where s.client = who) >= lim.per_ip then
    msg := 'Ai trimis deja multe mesaje în ultima oră. Te rugăm să încerci din nou mai târziu.';
  elsif (select count(*) from casus_meta.feedback_senders) >= lim.total then
    msg := 'Primim prea multe mesaje în acest moment. Te rugăm să încerci din nou mai târziu.';
  end if;
  if msg is not null then
    raise sqlstate 'PGRST' using
      message = json_build_object('code', 'over_feedback_rate_limit', 'message', msg)::text,
      detail = json_build_object('status', 429, 'headers', json_build_object('Retry-After', '3600'))::text;
  end if;
  insert into casus_meta.feedback_senders (client) values (who);
  return new;
end
$$;
create trigger feedback_rate_limit before insert on public.feedback
  for each row execute function public.feedback_rate_limit();
revoke execute on function public.feedback_rate_limit() from public, anon, authenticated, service_role;

-- 5: admin powers need aal2 whenever the role requires MFA ----------------------------------

create or replace function public.mfa_satisfied() returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(auth.jwt() ->> 'aal', 'aal1') = 'aal2' or not public.mfa_required()
$$;

-- 8: public_profiles ------------------------------------------------------------------------

-- The rows, for a signed-in permanent account: username and university of everyone on the
-- boards (not opted out, not anonymous). The view over it runs with the caller's rights.
create function public.public_profile_rows() returns table (username text, university_code text)
language sql stable security definer set search_path = '' as $$
  select p.username, p.university_code
  from public.user_profiles p join auth.users u on u.id = p.id
  where (auth.jwt() ->> 'role' = 'service_role' or (auth.uid() is not null and not public.grile_caller_anonymous()))
    and not p.hide_from_leaderboards and not u.is_anonymous
$$;
revoke execute on function public.public_profile_rows() from public, anon;
grant execute on function public.public_profile_rows() to authenticated, service_role;

drop view public.public_profiles;
create view public.public_profiles with (security_invoker = true) as
select * from public.public_profile_rows();
revoke all on public.public_profiles from public, anon, authenticated;
grant select on public.public_profiles to authenticated, service_role;

-- 12: extension functions -------------------------------------------------------------------

-- Supabase keeps extensions in a schema the API roles do not call into; here they live in
-- public, so their routines lose EXECUTE for anon and authenticated (the app's own
-- functions call them as their owner, SECURITY DEFINER, or the owner's queries do).
do $$
declare
  f record;
begin
  for f in
    select p.oid::regprocedure as sig
    from pg_proc p join pg_depend d on d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'
    join pg_extension x on x.oid = d.refobjid
    join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
  loop
    execute format('revoke execute on function %s from public, anon, authenticated', f.sig);
    execute format('grant execute on function %s to service_role', f.sig);
  end loop;
end
$$;
-- The folding of the search copies (casus_fold, run as the writer of a case) needs this one.
grant execute on function public.unaccent(regdictionary, text) to authenticated;

-- 11: not found is 404 ---------------------------------------------------------------------

-- PostgREST answers P0002 (no_data_found) with 500, and 'PTnnn' with status nnn: every RPC
-- of the app that raised P0002 for a row that does not exist (or is not the caller's)
-- raises PT404 instead. Redefined in place (CREATE OR REPLACE keeps owner and grants).
do $$
declare
  f record;
begin
  for f in
    select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.prosrc like '%errcode = ''P0002''%'
  loop
    execute replace(pg_get_functiondef(f.oid), 'errcode = ''P0002''', 'errcode = ''PT404''');
  end loop;
end
$$;
