-- The review queue for generated cases (issue 9). A generated case is saved unverified;
-- a moderator or an admin opens it, may edit any field (and its articles, steps and hints),
-- then verifies it or rejects it with a reason its author sees. Every change is recorded
-- in case_audit (who, when, what). The rules live here, not in the UI: the RPCs check the
-- caller's role from user_profiles (public.is_moderator(), SECURITY DEFINER, from 005).

alter table public.cases
  add column rejection_reason text check (rejection_reason is null or (btrim(rejection_reason) <> '' and char_length(rejection_reason) <= 2000)),
  add column reviewed_by uuid references auth.users (id) on delete set null,
  add column reviewed_at timestamptz;
-- The queue: unverified, not rejected, newest first.
create index cases_review_queue_idx on public.cases (created_at desc) where not verified and rejection_reason is null;
-- No API role receives insert/update on the new columns: 005 grants columns one by one,
-- so only the SECURITY DEFINER functions below write them.

-- The audit trail. Written only by the review functions and the triggers below (all
-- SECURITY DEFINER); readable by moderators and admins; never changed through the API.
create table public.case_audit (
  id bigint generated always as identity primary key,
  case_id uuid,
  case_code text,
  actor_id uuid,
  action text not null check (action in ('verify', 'reject', 'edit', 'update', 'delete', 'insert')),
  entity text not null default 'case' check (entity in ('case', 'article', 'step', 'hint')),
  old_values jsonb,
  new_values jsonb,
  created_at timestamptz not null default now()
);
create index case_audit_case_idx on public.case_audit (case_id, created_at);
alter table public.case_audit enable row level security;
revoke all on public.case_audit from public, anon, authenticated;
grant select on public.case_audit to authenticated;
grant all on public.case_audit to service_role;
create policy case_audit_read_moderators on public.case_audit for select to authenticated
  using (public.is_moderator());

-- Only the keys whose values differ, from each side.
create function public.jsonb_changed(p_old jsonb, p_new jsonb, out old_values jsonb, out new_values jsonb)
language sql immutable set search_path = '' as $$
  select coalesce(jsonb_object_agg(k, p_old -> k) filter (where p_old ? k), '{}'::jsonb),
         coalesce(jsonb_object_agg(k, p_new -> k) filter (where p_new ? k), '{}'::jsonb)
  from (select jsonb_object_keys(coalesce(p_old, '{}')) as k
        union select jsonb_object_keys(coalesce(p_new, '{}'))) keys
  where (p_old -> k) is distinct from (p_new -> k)
$$;

-- Changes made outside the review functions (a moderator's direct /rest/v1 edit, an author
-- deleting their draft) are recorded row by row. The review functions record one
-- consolidated row themselves and switch this off for their own statements. Only API
-- callers (auth.uid() set) are recorded: the seeder and the grading path are the owner.
create function public.case_audit_trigger() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor uuid := auth.uid();
  entity text := case tg_table_name when 'cases' then 'case' when 'case_articles' then 'article'
                   when 'case_analysis_steps' then 'step' else 'hint' end;
  cid uuid;
  author uuid;
  verified boolean;
  o jsonb;
  n jsonb;
begin
  if actor is null or coalesce(current_setting('casus.review_rpc', true), '') = 'on' then
    return null;
  end if;
  if tg_op <> 'INSERT' then o := to_jsonb(old); end if;
  if tg_op <> 'DELETE' then n := to_jsonb(new); end if;
  cid := coalesce(n ->> (case entity when 'case' then 'id' else 'case_id' end), o ->> (case entity when 'case' then 'id' else 'case_id' end))::uuid;
  if entity <> 'case' then
    -- An author writing the children of their own unverified draft (saving it) is not review.
    select c.user_id, c.verified into author, verified from public.cases c where c.id = cid;
    if author = actor and not coalesce(verified, false) then
      return null;
    end if;
  end if;
  if tg_op = 'UPDATE' then
    select ch.old_values, ch.new_values into o, n from public.jsonb_changed(o, n) ch;
    if o = '{}'::jsonb and n = '{}'::jsonb then
      return null;
    end if;
  end if;
  insert into public.case_audit (case_id, case_code, actor_id, action, entity, old_values, new_values)
  values (cid, (select c.case_code from public.cases c where c.id = cid), actor, lower(tg_op), entity, o, n);
  return null;
end
$$;

create trigger cases_audit after update or delete on public.cases
  for each row execute function public.case_audit_trigger();
create trigger case_articles_audit after insert or update or delete on public.case_articles
  for each row execute function public.case_audit_trigger();
create trigger case_steps_audit after insert or update or delete on public.case_analysis_steps
  for each row execute function public.case_audit_trigger();
create trigger case_hints_audit after insert or update or delete on public.case_hints
  for each row execute function public.case_audit_trigger();

-- The caller must be a moderator or an admin (service_role too, for tooling).
create function public.review_require_moderator() returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if not (public.is_moderator() or auth.role() = 'service_role') then
    raise exception 'permission denied: only moderators and administrators can review cases' using errcode = '42501';
  end if;
end
$$;

-- A whole case as JSON (fields and children), for the audit's before/after.
create function public.case_snapshot(p_case_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select to_jsonb(c) - 'created_at'
    || jsonb_build_object(
      'articles', coalesce((select jsonb_agg(jsonb_build_object('article_number', a.article_number, 'article_reference', a.article_reference)
                             order by a.article_number) from public.case_articles a where a.case_id = c.id), '[]'),
      'analysis_steps', coalesce((select jsonb_agg(s.step_description order by s.step_number)
                                  from public.case_analysis_steps s where s.case_id = c.id), '[]'),
      'hints', coalesce((select jsonb_agg(h.hint_text order by h.hint_number) from public.case_hints h where h.case_id = c.id), '[]'))
  from public.cases c where c.id = p_case_id
$$;

-- The queue: unverified cases nobody has rejected, newest first, with the author's name.
create function public.review_queue()
returns table (id uuid, case_code text, title text, domain text, category text, subcategory text, level text,
               week_number int, created_at timestamptz, author_id uuid, author_username text, author_name text)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.review_require_moderator();
  return query
    select c.id, c.case_code, c.title, c.domain, c.category, c.subcategory, c.level, c.week_number, c.created_at,
           c.user_id, p.username, p.name
    from public.cases c left join public.user_profiles p on p.id = c.user_id
    where not c.verified and c.rejection_reason is null
    order by c.created_at desc, c.case_code;
end
$$;

create function public.review_verify_case(p_case_id uuid) returns public.cases
language plpgsql volatile security definer set search_path = '' as $$
declare
  before public.cases;
  result public.cases;
begin
  perform public.review_require_moderator();
  select * into before from public.cases where id = p_case_id for update;
  if not found then
    raise exception 'case not found' using errcode = 'P0002';
  end if;
  if before.verified then
    return before;
  end if;
  perform set_config('casus.review_rpc', 'on', true);
  update public.cases set verified = true, rejection_reason = null, reviewed_by = auth.uid(), reviewed_at = now()
  where id = p_case_id returning * into result;
  perform set_config('casus.review_rpc', '', true);
  insert into public.case_audit (case_id, case_code, actor_id, action, old_values, new_values)
  values (p_case_id, result.case_code, auth.uid(), 'verify',
          jsonb_build_object('verified', before.verified, 'rejection_reason', before.rejection_reason),
          jsonb_build_object('verified', true, 'rejection_reason', null));
  return result;
end
$$;

create function public.review_reject_case(p_case_id uuid, p_reason text) returns public.cases
language plpgsql volatile security definer set search_path = '' as $$
declare
  before public.cases;
  result public.cases;
  reason text := btrim(coalesce(p_reason, ''));
begin
  perform public.review_require_moderator();
  if reason = '' then
    raise exception 'Motivul respingerii este obligatoriu' using errcode = '22023';
  end if;
  if char_length(reason) > 2000 then
    raise exception 'Motivul respingerii poate avea cel mult 2000 de caractere' using errcode = '22023';
  end if;
  select * into before from public.cases where id = p_case_id for update;
  if not found then
    raise exception 'case not found' using errcode = 'P0002';
  end if;
  if before.verified then
    raise exception 'Cazul este deja verificat' using errcode = '22023';
  end if;
  perform set_config('casus.review_rpc', 'on', true);
  update public.cases set rejection_reason = reason, reviewed_by = auth.uid(), reviewed_at = now()
  where id = p_case_id returning * into result;
  perform set_config('casus.review_rpc', '', true);
  insert into public.case_audit (case_id, case_code, actor_id, action, old_values, new_values)
  values (p_case_id, result.case_code, auth.uid(), 'reject',
          jsonb_build_object('rejection_reason', before.rejection_reason), jsonb_build_object('rejection_reason', reason));
  return result;
end
$$;

-- A moderator's edit of an unverified case: every field and the children, replaced in one
-- call, with save_generated_case's validation and messages (joined by '. ', 23514).
-- p_case has save_generated_case's shape. One audit row holds the changed parts.
create function public.review_update_case(p_case_id uuid, p_case jsonb) returns public.cases
language plpgsql volatile security definer set search_path = '' as $$
declare
  before public.cases;
  result public.cases;
  old_snap jsonb;
  new_snap jsonb;
  problems text[] := '{}';
  dom text;
  steps text[];
  hints text[];
begin
  perform public.review_require_moderator();
  if p_case is null or jsonb_typeof(p_case) <> 'object' then
    raise exception 'case must be a JSON object' using errcode = '22023';
  end if;
  select * into before from public.cases where id = p_case_id for update;
  if not found then
    raise exception 'case not found' using errcode = 'P0002';
  end if;
  if before.verified then
    raise exception 'Cazul este deja verificat' using errcode = '22023';
  end if;
  dom := coalesce(nullif(lower(btrim(p_case ->> 'domain')), ''), case left(upper(btrim(p_case ->> 'case_code')), 3)
    when 'CIV' then 'civil' when 'PEN' then 'penal' when 'CON' then 'constitutional' end, before.domain);

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

  old_snap := public.case_snapshot(p_case_id);
  perform set_config('casus.review_rpc', 'on', true);
  update public.cases set
    case_code = p_case ->> 'case_code',
    title = btrim(p_case ->> 'title'),
    level = coalesce(nullif(btrim(p_case ->> 'level'), ''), before.level),
    week_number = coalesce((p_case ->> 'week_number')::int, before.week_number),
    legal_problem = btrim(p_case ->> 'legal_problem'),
    case_description = btrim(p_case ->> 'case_description'),
    question = btrim(p_case ->> 'question'),
    category = case when p_case ? 'category' then nullif(btrim(p_case ->> 'category'), '') else before.category end,
    subcategory = nullif(btrim(p_case ->> 'subcategory'), ''),
    domain = dom,
    reviewed_by = auth.uid(),
    reviewed_at = now()
  where id = p_case_id;

  delete from public.case_articles where case_id = p_case_id;
  insert into public.case_articles (case_id, article_number, article_reference)
  select distinct on (num) p_case_id, num, ref
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
  delete from public.case_analysis_steps where case_id = p_case_id;
  insert into public.case_analysis_steps (case_id, step_number, step_description)
  select p_case_id, n, v from unnest(steps) with ordinality as t (v, n);
  delete from public.case_hints where case_id = p_case_id;
  insert into public.case_hints (case_id, hint_number, hint_text)
  select p_case_id, n, v from unnest(hints) with ordinality as t (v, n);
  perform set_config('casus.review_rpc', '', true);

  new_snap := public.case_snapshot(p_case_id);
  select * into result from public.cases where id = p_case_id;
  insert into public.case_audit (case_id, case_code, actor_id, action, old_values, new_values)
  select p_case_id, result.case_code, auth.uid(), 'edit', ch.old_values - 'reviewed_at' - 'reviewed_by', ch.new_values - 'reviewed_at' - 'reviewed_by'
  from public.jsonb_changed(old_snap, new_snap) ch;
  return result;
end
$$;

-- The caller's own generated cases with their review status, for My Progress.
create function public.my_generated_cases()
returns table (id uuid, case_code text, title text, domain text, created_at timestamptz, verified boolean,
               rejection_reason text, reviewed_at timestamptz, status text)
language sql stable security invoker set search_path = '' as $$
  select c.id, c.case_code, c.title, c.domain, c.created_at, c.verified, c.rejection_reason, c.reviewed_at,
         case when c.verified then 'verified' when c.rejection_reason is not null then 'rejected' else 'pending' end
  from public.cases c
  where c.user_id = auth.uid()
  order by c.created_at desc
$$;

revoke execute on function public.jsonb_changed(jsonb, jsonb), public.case_audit_trigger(), public.review_require_moderator(),
  public.case_snapshot(uuid), public.review_queue(), public.review_verify_case(uuid), public.review_reject_case(uuid, text),
  public.review_update_case(uuid, jsonb), public.my_generated_cases() from public, anon;
grant execute on function public.review_queue(), public.review_verify_case(uuid), public.review_reject_case(uuid, text),
  public.review_update_case(uuid, jsonb), public.my_generated_cases() to authenticated, service_role;
