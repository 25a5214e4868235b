-- Hardening of the data rules (issue 21, lane hard-db). Self-contained: it only replaces
-- objects created by 004–014.

-- 1. A case somebody worked on is never deleted. Submissions, completions and tutor
-- conversations used to follow a deleted case (on delete cascade): a moderator deleting a
-- verified case erased students' graded work and completions, against 005's rule that
-- progress never reverts. The trigger refuses with a clear message (SQLSTATE 23503, which
-- the data API answers 409); the foreign keys restrict as well, for any path the trigger
-- does not see. A case nobody used can still be deleted (an author's failed save).
create function public.cases_refuse_delete_in_use() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if exists (select 1 from public.case_submissions s where s.case_id = old.id)
     or exists (select 1 from public.case_completions cc where cc.case_id = old.id)
     or exists (select 1 from public.chat_conversations c where c.case_id = old.id) then
    raise exception 'case % is in use and cannot be deleted', old.case_code
      using errcode = '23503',
            detail = 'Students have submissions, completions or tutor conversations on this case.',
            hint = 'Leave the case in place; only a case nobody has used can be deleted.';
  end if;
  return old;
end
$$;
create trigger cases_refuse_delete_in_use before delete on public.cases
  for each row execute function public.cases_refuse_delete_in_use();

alter table public.case_submissions drop constraint case_submissions_case_id_fkey,
  add constraint case_submissions_case_id_fkey foreign key (case_id) references public.cases (id) on delete restrict;
alter table public.case_completions drop constraint case_completions_case_id_fkey,
  add constraint case_completions_case_id_fkey foreign key (case_id) references public.cases (id) on delete restrict;
alter table public.chat_conversations drop constraint chat_conversations_case_id_fkey,
  add constraint chat_conversations_case_id_fkey foreign key (case_id) references public.cases (id) on delete restrict;

-- 2. Functions follow the read rule of cases.
-- case_used_by_others is called by the delete policy of cases, so students keep EXECUTE;
-- it answers only the case's author and moderators (null for anyone else), instead of
-- telling any caller whether others worked on any case.
create or replace function public.case_used_by_others(p_case_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select case when exists (select 1 from public.cases c
                           where c.id = p_case_id and (c.user_id = auth.uid() or public.is_moderator()))
    then exists (select 1 from public.case_submissions s where s.case_id = p_case_id and s.user_id is distinct from auth.uid())
      or exists (select 1 from public.chat_conversations c where c.case_id = p_case_id and c.user_id is distinct from auth.uid())
  end
$$;

-- The folded search copy holds no rejected case: its code and title were readable by every
-- student through case_search. A policy joining cases would hide them too, but any policy
-- other than true keeps PostgreSQL from using the trigram and code indexes for the
-- searches' non-leakproof conditions (search_cases went from 0.8 to 42 ms of database CPU
-- in scripts/bench.sh rest). A rejected case is found only by its author (My Progress)
-- and moderators (the review pages), not through search.
create or replace function public.cases_sync_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.rejection_reason is not null then
    delete from public.case_search where case_id = new.id;
    return null;
  end if;
  insert into public.case_search (case_id, code_fold, title_fold)
  values (new.id, public.search_fold(new.case_code), public.search_fold(new.title))
  on conflict (case_id) do update set code_fold = excluded.code_fold, title_fold = excluded.title_fold;
  return null;
end
$$;
drop trigger cases_sync_search on public.cases;
create trigger cases_sync_search after insert or update of case_code, title, rejection_reason on public.cases
  for each row execute function public.cases_sync_search();
delete from public.case_search s using public.cases c where c.id = s.case_id and c.rejection_reason is not null;

-- 3. EXECUTE that actually follows the grants. PostgreSQL gives PUBLIC EXECUTE on every new
-- function, and 001's per-schema default privileges could not take that away (a schema's
-- defaults only add to the global ones), so "revoke ... from anon" in 006, 007 and 011
-- left anon calling through PUBLIC. Every function of the app (not of extensions) loses
-- PUBLIC's EXECUTE; the API roles keep only their explicit grants.
do $$
declare
  f regprocedure;
begin
  for f in
    select p.oid::regprocedure from pg_proc p
    where p.pronamespace = 'public'::regnamespace
      and not exists (select 1 from pg_depend d
                      where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  loop
    execute format('revoke execute on function %s from public', f);
  end loop;
end
$$;
-- Internal helpers are called only by SECURITY DEFINER code (which runs as the owner) or
-- fire as triggers: no API role calls them. case_snapshot returned any case, a rejected
-- one with its reviewer and reason included.
revoke execute on function public.case_snapshot(uuid), public.jsonb_changed(jsonb, jsonb), public.case_audit_trigger(),
  public.review_require_moderator(), public.cases_refuse_delete_in_use() from anon, authenticated;
-- New functions: no PUBLIC EXECUTE (global default of the migrating role), and none for
-- anon unless a migration grants it; signed-in users and service_role keep their default.
alter default privileges revoke execute on functions from public;
alter default privileges in schema public revoke execute on functions from anon;

-- 4. Two admins demoting each other at once could each see the other still an admin and
-- leave none. The check and the change now run one at a time (a transaction-level lock),
-- and the count is taken after the lock, so the second demotion sees the first.
create or replace function public.update_user_role(p_user_id uuid, p_new_role text)
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
  perform pg_advisory_xact_lock(hashtext('casus.update_user_role'));
  -- Read committed: this statement's snapshot is taken after the lock was granted.
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
