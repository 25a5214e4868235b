-- Views and remote procedures of the domain (issue 4). Views that hold per-user data are
-- security_invoker, so the caller's RLS applies; the few SECURITY DEFINER functions check
-- the caller themselves and pin search_path.

-- Submissions joined with their case, for the progress page. score_value is a percent:
-- taken from a parsed "N/M" score when there is one, else the stored value (out of 100).
create view public.submissions_with_details with (security_invoker = true) as
select s.id, s.user_id, s.case_id, c.case_code, c.title as case_title, s.score,
       case when s.score ~ '^\s*[0-9]+(\.[0-9]+)?\s*/\s*[0-9]*[1-9][0-9]*\s*$'
            then round(100 * split_part(s.score, '/', 1)::numeric / split_part(s.score, '/', 2)::numeric, 2)
            else s.score_value end as score_value,
       s.feedback_text, s.status, s.difficulty_rating, s.submitted_at, s.feedback_at
from public.case_submissions s
join public.cases c on c.id = s.case_id;

-- Progress per user and case: in_progress once any submission exists, completed (with the
-- date of the first submission scoring above 50) once case_completions has a row.
create view public.case_progress with (security_invoker = true) as
with subs as (
  select user_id, case_id, count(*) as submission_count, min(submitted_at) as started_at,
         max(submitted_at) as last_submitted_at, max(score_value) as best_score
  from public.case_submissions
  group by user_id, case_id
)
select coalesce(s.user_id, cc.user_id) as user_id, coalesce(s.case_id, cc.case_id) as case_id,
       c.case_code, c.title as case_title,
       case when cc.case_id is not null then 'completed' else 'in_progress' end as status,
       cc.completed_at, coalesce(s.started_at, cc.completed_at) as started_at, s.last_submitted_at,
       coalesce(s.submission_count, 0) as submission_count, s.best_score
from subs s
full join public.case_completions cc on cc.user_id = s.user_id and cc.case_id = s.case_id
join public.cases c on c.id = coalesce(s.case_id, cc.case_id);

-- Leaderboard-safe profile data: usernames without e-mail, name or role. A definer view on
-- purpose (it bypasses user_profiles' own-row policy), exposing only these columns.
create view public.public_profiles as
select id, username, university_code, created_at from public.user_profiles;

-- The ranking itself: completed cases, then average score.
create function public.leaderboard(max_results int default 20)
returns table (username text, university_code text, completed_cases bigint, submissions bigint, average_score numeric)
language sql stable security definer set search_path = '' as $$
  select p.username, p.university_code,
         (select count(*) from public.case_completions cc where cc.user_id = p.id),
         count(s.id), round(avg(s.score_value), 1)
  from public.user_profiles p
  join public.case_submissions s on s.user_id = p.id
  where auth.uid() is not null or auth.role() = 'service_role'
  group by p.id
  order by 3 desc, 5 desc nulls last, p.username
  limit least(greatest(coalesce(max_results, 20), 0), 100)
$$;

revoke all on public.submissions_with_details, public.case_progress, public.public_profiles from public, anon, authenticated;
grant select on public.submissions_with_details, public.case_progress, public.public_profiles to authenticated, service_role;

-- Creates the profile of a user who just signed up. With e-mail confirmation on the client
-- has no session yet and calls this as anon, so the arguments themselves must prove the
-- right: the auth user with that id AND e-mail must exist, have no profile, and (for anon)
-- be less than an hour old. A signed-in caller may only create their own. University name
-- and category come from the fixed list, not from the caller.
create function public.create_user_profile(p_id uuid, p_email text, p_name text, p_username text,
  p_university_code text, p_university_category text default null, p_university_name text default null)
returns public.user_profiles
language plpgsql volatile security definer set search_path = '' as $$
declare
  u auth.users;
  uni public.universities;
  result public.user_profiles;
begin
  if auth.uid() is not null and auth.uid() is distinct from p_id then
    raise exception 'cannot create a profile for another user' using errcode = '42501';
  end if;
  select * into u from auth.users where id = p_id and lower(email) = lower(btrim(p_email)) and deleted_at is null;
  if not found or (auth.uid() is null and auth.role() is distinct from 'service_role'
                   and u.created_at < now() - interval '1 hour') then
    raise exception 'no matching recent sign-up for this profile' using errcode = '42501';
  end if;
  if exists (select 1 from public.user_profiles where id = p_id) then
    raise exception 'profile already exists' using errcode = '23505';
  end if;
  if char_length(btrim(coalesce(p_name, ''))) < 2 then
    raise exception 'Name must be at least 2 characters' using errcode = '23514';
  end if;
  if char_length(coalesce(p_username, '')) < 3 then
    raise exception 'Username must be at least 3 characters' using errcode = '23514';
  end if;
  if p_username !~ '^[A-Za-z0-9_]+$' then
    raise exception 'Username can only contain letters, numbers, and underscores' using errcode = '23514';
  end if;
  if exists (select 1 from public.user_profiles where lower(username) = lower(p_username)) then
    raise exception 'Username is already taken' using errcode = '23505';
  end if;
  select * into uni from public.universities where code = btrim(p_university_code);
  if not found then
    raise exception 'Please select a university' using errcode = '23503';
  end if;
  insert into public.user_profiles (id, email, name, username, university_code, university_name, university_category)
  values (p_id, u.email, btrim(p_name), p_username, uni.code,
          case when uni.code = 'Other' and btrim(coalesce(p_university_name, '')) not in ('', uni.name)
               then left(btrim(p_university_name), 200) else uni.name end,
          uni.category)
  returning * into result;
  return result;
end
$$;

-- Live availability check of the sign-up form (callable before sign-in). A username that
-- could never be valid is reported as unavailable.
create function public.is_username_available(p_username text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(p_username ~ '^[A-Za-z0-9_]{3,50}$', false)
     and not exists (select 1 from public.user_profiles where lower(username) = lower(p_username))
$$;

-- Admins change any user's role; is_admin follows (generated column). The last admin cannot
-- demote themselves, so the platform is never left without one.
create function public.update_user_role(p_user_id uuid, p_new_role text)
returns public.user_profiles
language plpgsql volatile security definer set search_path = '' as $$
declare
  result public.user_profiles;
begin
  if not (public.is_admin() or auth.role() = 'service_role') then
    raise exception 'permission denied: only administrators can change user roles' using errcode = '42501';
  end if;
  if p_new_role is null or p_new_role not in ('user', 'moderator', 'admin') then
    raise exception 'invalid role: %', coalesce(p_new_role, 'null')
      using errcode = '22023', hint = 'Use one of: user, moderator, admin.';
  end if;
  if p_new_role <> 'admin' and exists (select 1 from public.user_profiles where id = p_user_id and role = 'admin')
     and (select count(*) from public.user_profiles where role = 'admin') = 1 then
    raise exception 'cannot remove the last administrator' using errcode = '23514';
  end if;
  update public.user_profiles set role = p_new_role where id = p_user_id returning * into result;
  if not found then
    raise exception 'user not found' using errcode = 'P0002';
  end if;
  return result;
end
$$;

-- Search by code or title, ignoring case and diacritics, over case_search (folded on write).
-- Code matches rank first: codes starting with the query (the exact code sorts first among
-- them), then codes containing it, then titles containing it; each tier in code order.
-- Two-character queries match the start of a code or (letters and digits only) of a title
-- word: substring search needs three characters for the trigram index. % and _ are literal. Under two characters
-- nothing is returned, like the UI. Runs as the caller: RLS on cases applies.
--
-- Speed at 100,000 cases: each tier has its own LIMIT and later tiers run only while rows
-- are missing. A substring tier first scans the lowest `probe` codes in code order (cheap,
-- and enough when matches are dense, e.g. "caz"); only if that window holds too few does it
-- fetch the remaining matches through the trigram index and sort them, which is cheap
-- exactly because they are then sparse.
create function public.search_cases(search_query text, max_results int default 10)
returns table (id uuid, case_code text, title text, level text, verified boolean, category text,
  subcategory text, domain text)
language plpgsql stable set search_path = '' as $$
declare
  probe constant int := 2000;
  q text := public.search_fold(btrim(coalesce(search_query, '')));
  want int := least(greatest(coalesce(max_results, 10), 0), 50);
  lit text;
  cond text;
  p1 text;
  p2 text;
  boundary text;
  got int;
  cols constant text := 'select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain ';
begin
  if char_length(q) < 2 or want = 0 then
    return;
  end if;
  lit := replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_');
  -- Codes starting with the query: one btree range scan in code order.
  return query execute cols || 'from (select s.case_id, s.code_fold from public.case_search s
      where s.code_fold like ($1 collate "C") order by s.code_fold limit $2) m
    join public.cases c on c.id = m.case_id order by m.code_fold'
    using lit || '%', want;
  get diagnostics got = row_count;
  want := want - got;
  for tier in 2..3 loop
    exit when want <= 0;
    if char_length(q) < 3 then
      -- Word starts only for letters and digits: "_a" would otherwise fetch every word
      -- starting with "a" from the index just to recheck it away.
      exit when tier = 3 or q !~ '^[[:alnum:]]+$';
      cond := '(s.title_fold like $1 or s.title_fold like $2) and s.code_fold not like ($1 collate "C")';
      p1 := lit || '%';
      p2 := '% ' || lit || '%';
    elsif tier = 2 then
      cond := 's.code_fold like ($1 collate "C") and s.code_fold not like ($2 collate "C")';
      p1 := '%' || lit || '%';
      p2 := lit || '%';
    else
      cond := 's.title_fold like $1 and s.code_fold not like ($1 collate "C") and $2 is null';
      p1 := '%' || lit || '%';
      p2 := null;
    end if;
    if boundary is null then
      select s.code_fold into boundary from public.case_search s order by s.code_fold offset probe - 1 limit 1;
      boundary := coalesce(boundary, chr(1114111));
    end if;
    -- EXECUTE plans with the actual patterns, which the planner needs to pick its indexes.
    -- The window is a LIMITed subquery so the planner cannot trade it for the trigram index.
    return query execute cols || 'from (select s.case_id, s.code_fold
        from (select * from public.case_search w order by w.code_fold limit $4) s
        where ' || cond || ' order by s.code_fold limit $3) m
      join public.cases c on c.id = m.case_id order by m.code_fold'
      using p1, p2, want, probe;
    get diagnostics got = row_count;
    want := want - got;
    if want > 0 then
      return query execute cols || 'from (with hits as materialized (
          select s.case_id, s.code_fold from public.case_search s where ' || cond || ' and s.code_fold > ($4 collate "C"))
        select case_id, code_fold from hits order by code_fold limit $3) m
      join public.cases c on c.id = m.case_id order by m.code_fold'
        using p1, p2, want, boundary;
      get diagnostics got = row_count;
      want := want - got;
    end if;
  end loop;
end
$$;

-- Saves a generated case with its articles, steps and hints in one transaction (a function
-- call is one statement), as the caller so RLS applies: the case is the caller's and
-- unverified whatever the payload says. Steps and hints are renumbered 1..n in array
-- order after dropping empty ones. A duplicate code fails with 23505 (unique violation).
-- Accepted payload keys: the case columns, "articles" (objects with article_number and
-- article_reference, or reference strings), "analysis_steps" and "hints" (strings, or
-- objects with description/step_description and text/hint_text).
create function public.save_generated_case(p_case jsonb) returns uuid
language plpgsql volatile set search_path = '' as $$
declare
  uid uuid := auth.uid();
  new_id uuid;
  problems text[] := '{}';
  dom text;
  steps text[];
  hints text[];
begin
  if uid is null then
    raise exception 'Trebuie să fii autentificat pentru a salva cazuri' using errcode = '42501';
  end if;
  if p_case is null or jsonb_typeof(p_case) <> 'object' then
    raise exception 'case must be a JSON object' using errcode = '22023';
  end if;
  dom := lower(btrim(coalesce(p_case ->> 'domain', case left(upper(btrim(p_case ->> 'case_code')), 3)
    when 'CIV' then 'civil' when 'PEN' then 'penal' when 'CON' then 'constitutional' end)));

  select coalesce(array_agg(v order by n), '{}') into steps
  from (
    select btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'description', e ->> 'step_description') end) as v, n
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'analysis_steps') when 'array' then p_case -> 'analysis_steps' else '[]' end)
      with ordinality as t (e, n)
  ) s where coalesce(v, '') <> '';
  select coalesce(array_agg(v order by n), '{}') into hints
  from (
    select btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'text', e ->> 'hint_text') end) as v, n
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'hints') when 'array' then p_case -> 'hints' else '[]' end)
      with ordinality as t (e, n)
  ) h where coalesce(v, '') <> '';

  -- The spec's validation messages, joined with '. ' as the UI shows them.
  if btrim(coalesce(p_case ->> 'case_code', '')) = '' then problems := problems || 'Codul cazului este obligatoriu'::text; end if;
  if btrim(coalesce(p_case ->> 'title', '')) = '' then problems := problems || 'Titlul este obligatoriu'::text; end if;
  if btrim(coalesce(p_case ->> 'legal_problem', '')) = '' then problems := problems || 'Problema juridică este obligatorie'::text; end if;
  if btrim(coalesce(p_case ->> 'case_description', '')) = '' then problems := problems || 'Descrierea cazului este obligatorie'::text; end if;
  if btrim(coalesce(p_case ->> 'question', '')) = '' then problems := problems || 'Întrebarea este obligatorie'::text; end if;
  if dom in ('civil', 'constitutional') and btrim(coalesce(p_case ->> 'subcategory', '')) = '' then
    problems := problems || 'Subcategoria este obligatorie pentru cazuri civile/constituționale'::text;
  end if;
  if cardinality(steps) = 0 then problems := problems || 'Cel puțin un pas de analiză cu conținut este obligatoriu'::text; end if;
  if cardinality(hints) = 0 then problems := problems || 'Cel puțin un indiciu cu conținut este obligatoriu'::text; end if;
  if cardinality(problems) > 0 then
    raise exception '%', array_to_string(problems, '. ') using errcode = '23514';
  end if;

  insert into public.cases (user_id, case_code, title, level, week_number, legal_problem, case_description,
    question, category, subcategory, verified, domain)
  values (uid, p_case ->> 'case_code', btrim(p_case ->> 'title'), coalesce(nullif(btrim(p_case ->> 'level'), ''), 'Mediu'),
    coalesce((p_case ->> 'week_number')::int, 1), btrim(p_case ->> 'legal_problem'), btrim(p_case ->> 'case_description'),
    btrim(p_case ->> 'question'), nullif(btrim(p_case ->> 'category'), ''), nullif(btrim(p_case ->> 'subcategory'), ''),
    false, dom)
  returning id into new_id;

  insert into public.case_articles (case_id, article_number, article_reference)
  select distinct on (num) new_id, num, ref
  from (
    select n,
           btrim(case jsonb_typeof(e) when 'string' then e #>> '{}' else coalesce(e ->> 'article_number', e ->> 'number') end) as num,
           btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'article_reference', e ->> 'reference', e ->> 'article_number', e ->> 'number') end) as ref
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'articles') when 'array' then p_case -> 'articles' else '[]' end)
      with ordinality as t (e, n)
  ) a
  where coalesce(num, '') <> '' and coalesce(ref, '') <> ''
  order by num, n;

  insert into public.case_analysis_steps (case_id, step_number, step_description)
  select new_id, n, v from unnest(steps) with ordinality as t (v, n);
  insert into public.case_hints (case_id, hint_number, hint_text)
  select new_id, n, v from unnest(hints) with ordinality as t (v, n);
  return new_id;
end
$$;

-- Feedback with the stored row returned, for anonymous visitors too (a plain insert cannot
-- return the row to anon, who may not read feedback). The same rules as the table's policies.
create function public.submit_feedback(p_body text, p_email text default null) returns public.feedback
language plpgsql volatile security definer set search_path = '' as $$
declare
  result public.feedback;
begin
  if auth.uid() is not null then
    insert into public.feedback (user_id, email, body) values (auth.uid(), null, btrim(p_body)) returning * into result;
  else
    insert into public.feedback (user_id, email, body)
    values (null, nullif(btrim(coalesce(p_email, '')), ''), btrim(p_body)) returning * into result;
  end if;
  return result;
end
$$;

-- Only signed-in users have data to save, search or rank; anon keeps the sign-up calls.
revoke execute on function public.save_generated_case(jsonb), public.search_cases(text, int),
  public.leaderboard(int) from public, anon;
revoke execute on function public.current_app_role(), public.is_admin(), public.is_moderator(),
  public.can_edit_case(uuid), public.case_used_by_others(uuid) from public, anon;
