-- Issue 15, the app's side of grading students can trust:
--   * revise and resubmit: a submission may name the graded submission it revises;
--   * process signals of the editor (typed vs pasted characters, paste events, time to
--     submit), written once by the owner, read only by moderators and admins;
--   * the appeal of a blocked AI-authorship check: the owner asks for a human check, a
--     moderator releases the submission for grading (ai_decision = 'RELEASED', which the
--     gateway accepts as gradable) or confirms the block with a reason; every step is
--     recorded in submission_appeal_audit;
--   * the model answer in the moderators' review screen: review_update_case stores it with
--     the rest of the edit, atomically and audited (reading it is grade-server's
--     case_model_answer RPC).
-- Everything is decided here: the RPCs check the caller, RLS the rows, column grants the
-- fields. The file stands alone (it only relies on 004-011).

-- Revise and resubmit ------------------------------------------------------------------

alter table public.case_submissions
  add column previous_submission_id uuid references public.case_submissions (id) on delete set null;
create index case_submissions_previous_idx on public.case_submissions (previous_submission_id)
  where previous_submission_id is not null;
grant insert (previous_submission_id) on public.case_submissions to authenticated;

-- The revised submission must be the caller's own graded work on the same case. Definer,
-- so the check does not depend on what the caller's policies let it see.
create function public.case_submissions_check_previous() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.previous_submission_id is not null and not exists (
    select 1 from public.case_submissions p
    where p.id = new.previous_submission_id and p.user_id = new.user_id and p.case_id = new.case_id
      and p.status = 'graded') then
    raise exception 'previous_submission_id must be a graded submission of yours on the same case'
      using errcode = '23514';
  end if;
  return new;
end
$$;
create trigger case_submissions_check_previous before insert or update of previous_submission_id on public.case_submissions
  for each row execute function public.case_submissions_check_previous();

-- Process signals ----------------------------------------------------------------------

-- Counts only: no keystroke, no text. One row per submission, written by its owner before
-- the AI check (so a verdict cannot be answered with better-looking numbers), never
-- updated, and read only by moderators and admins (the owner inserts with return=minimal).
create table public.submission_process_signals (
  submission_id uuid primary key references public.case_submissions (id) on delete cascade,
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  chars_typed int not null check (chars_typed between 0 and 10000000),
  chars_pasted int not null check (chars_pasted between 0 and 10000000),
  paste_events int not null check (paste_events between 0 and 100000),
  largest_paste int not null check (largest_paste between 0 and 10000000 and largest_paste <= chars_pasted),
  -- first keystroke (or paste) to the click on "Evaluează Soluția"; null when the text was
  -- never touched in this editor (it cannot happen through the app).
  ms_to_submit bigint check (ms_to_submit between 0 and 2592000000),
  recorded_at timestamptz not null default now()
);
alter table public.submission_process_signals enable row level security;
revoke all on public.submission_process_signals from public, anon, authenticated;
grant all on public.submission_process_signals to service_role;
grant select on public.submission_process_signals to authenticated;
grant insert (submission_id, user_id, chars_typed, chars_pasted, paste_events, largest_paste, ms_to_submit)
  on public.submission_process_signals to authenticated;
create policy submission_process_signals_read_moderators on public.submission_process_signals
  for select to authenticated using (public.is_moderator());
create policy submission_process_signals_insert_own on public.submission_process_signals
  for insert to authenticated
  with check (user_id = auth.uid() and exists (
    select 1 from public.case_submissions s
    where s.id = submission_id and s.user_id = auth.uid() and s.status = 'submitted' and s.ai_checked_at is null));

-- Appeals ------------------------------------------------------------------------------

create table public.submission_appeals (
  id uuid primary key default gen_random_uuid(),
  submission_id uuid not null unique references public.case_submissions (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  case_id uuid not null references public.cases (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'released', 'confirmed')),
  decision_reason text check (decision_reason is null or (btrim(decision_reason) <> '' and char_length(decision_reason) <= 2000)),
  requested_at timestamptz not null default now(),
  decided_at timestamptz,
  constraint submission_appeals_decided check ((status = 'pending') = (decided_at is null)),
  constraint submission_appeals_confirm_reason check (status <> 'confirmed' or decision_reason is not null)
);
create index submission_appeals_pending_idx on public.submission_appeals (requested_at) where status = 'pending';
create index submission_appeals_user_idx on public.submission_appeals (user_id, requested_at desc);
alter table public.submission_appeals enable row level security;
revoke all on public.submission_appeals from public, anon, authenticated;
grant all on public.submission_appeals to service_role;
-- Read by the student who asked and by moderators; written only by the RPCs below. Who
-- decided stays in the audit (moderators only), not in this row the student receives.
grant select on public.submission_appeals to authenticated;
create policy submission_appeals_read on public.submission_appeals for select to authenticated
  using (user_id = auth.uid() or public.is_moderator());

create table public.submission_appeal_audit (
  id bigint generated always as identity primary key,
  appeal_id uuid,
  submission_id uuid,
  actor_id uuid,
  action text not null check (action in ('request', 'release', 'confirm')),
  reason text,
  created_at timestamptz not null default now()
);
create index submission_appeal_audit_appeal_idx on public.submission_appeal_audit (appeal_id, created_at);
alter table public.submission_appeal_audit enable row level security;
revoke all on public.submission_appeal_audit from public, anon, authenticated;
grant select on public.submission_appeal_audit to authenticated;
grant all on public.submission_appeal_audit to service_role;
create policy submission_appeal_audit_read_moderators on public.submission_appeal_audit
  for select to authenticated using (public.is_moderator());

-- The spec's pass rule (§5): decision PASSED, or no decision and a probability of 30 or
-- below. A released appeal ('RELEASED') is not a pass of the check: it is its own state.
create function public.ai_check_passed(p_decision text, p_probability numeric) returns boolean
language sql immutable set search_path = '' as $$
  select case when coalesce(p_decision, '') <> '' then upper(p_decision) = 'PASSED'
              else p_probability is not null and p_probability <= 30 end
$$;

-- The text a human is asked to judge must stay the text the detector judged: once an
-- appeal exists, the student can no longer edit the submission. Invoker (current_user is
-- the caller's role), and the caller reads their own appeals.
create function public.case_submissions_freeze_appealed() returns trigger
language plpgsql set search_path = '' as $$
begin
  if current_user in ('anon', 'authenticated')
     and (new.submission_text is distinct from old.submission_text or new.difficulty_rating is distinct from old.difficulty_rating)
     and exists (select 1 from public.submission_appeals a where a.submission_id = old.id) then
    raise exception 'Soluția este în verificare umană și nu mai poate fi modificată.' using errcode = '42501';
  end if;
  return new;
end
$$;
create trigger case_submissions_freeze_appealed before update on public.case_submissions
  for each row execute function public.case_submissions_freeze_appealed();

-- The owner of a submission blocked by the AI check asks for a human check.
create function public.request_human_review(p_submission_id uuid) returns public.submission_appeals
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  sub public.case_submissions;
  result public.submission_appeals;
begin
  if uid is null then
    raise exception 'permission denied: sign in to ask for a human check' using errcode = '42501';
  end if;
  -- Someone else's submission is "not found", as in the gateway.
  select * into sub from public.case_submissions where id = p_submission_id and user_id = uid for update;
  if not found then
    raise exception 'Soluția nu există.' using errcode = 'P0002';
  end if;
  if exists (select 1 from public.submission_appeals a where a.submission_id = sub.id) then
    raise exception 'Ai cerut deja verificarea umană pentru această soluție.' using errcode = '23505';
  end if;
  if sub.status <> 'submitted' or sub.ai_checked_at is null or public.ai_check_passed(sub.ai_decision, sub.ai_probability)
     or upper(coalesce(sub.ai_decision, '')) = 'RELEASED' then
    raise exception 'Doar o soluție blocată de verificarea AI poate fi trimisă la verificare umană.' using errcode = '22023';
  end if;
  insert into public.submission_appeals (submission_id, user_id, case_id)
  values (sub.id, uid, sub.case_id) returning * into result;
  insert into public.submission_appeal_audit (appeal_id, submission_id, actor_id, action)
  values (result.id, sub.id, uid, 'request');
  return result;
end
$$;

-- The moderators' queue: pending appeals, oldest first, with everything needed to decide
-- (the text, the detector's verdict, the process signals, the case and the student).
create function public.appeal_queue()
returns table (id uuid, submission_id uuid, requested_at timestamptz, case_id uuid, case_code text, case_title text,
               student_username text, submission_text text, difficulty_rating int, ai_probability numeric,
               ai_decision text, ai_justification text, chars_typed int, chars_pasted int, paste_events int,
               largest_paste int, ms_to_submit bigint)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.review_require_moderator();
  return query
    select a.id, a.submission_id, a.requested_at, c.id, c.case_code, c.title, p.username, s.submission_text,
           s.difficulty_rating, s.ai_probability, s.ai_decision, s.ai_justification, sg.chars_typed, sg.chars_pasted,
           sg.paste_events, sg.largest_paste, sg.ms_to_submit
    from public.submission_appeals a
    join public.case_submissions s on s.id = a.submission_id
    join public.cases c on c.id = a.case_id
    left join public.user_profiles p on p.id = a.user_id
    left join public.submission_process_signals sg on sg.submission_id = a.submission_id
    where a.status = 'pending'
    order by a.requested_at, a.id;
end
$$;

-- Locks a pending appeal for a decision (moderators only).
create function public.appeal_lock_pending(p_appeal_id uuid) returns public.submission_appeals
language plpgsql volatile security definer set search_path = '' as $$
declare
  ap public.submission_appeals;
begin
  perform public.review_require_moderator();
  select * into ap from public.submission_appeals where id = p_appeal_id for update;
  if not found then
    raise exception 'Cererea nu există.' using errcode = 'P0002';
  end if;
  if ap.status <> 'pending' then
    raise exception 'Cererea a fost deja soluționată.' using errcode = '22023';
  end if;
  return ap;
end
$$;

-- Release: the submission becomes gradable (the gateway accepts ai_decision 'RELEASED').
create function public.appeal_release(p_appeal_id uuid) returns public.submission_appeals
language plpgsql volatile security definer set search_path = '' as $$
declare
  ap public.submission_appeals := public.appeal_lock_pending(p_appeal_id);
  result public.submission_appeals;
begin
  update public.case_submissions set ai_decision = 'RELEASED'
  where id = ap.submission_id and status = 'submitted';
  if not found then
    raise exception 'Soluția nu mai poate fi eliberată pentru evaluare.' using errcode = '22023';
  end if;
  update public.submission_appeals set status = 'released', decided_at = now()
  where id = ap.id returning * into result;
  insert into public.submission_appeal_audit (appeal_id, submission_id, actor_id, action)
  values (ap.id, ap.submission_id, auth.uid(), 'release');
  return result;
end
$$;

-- Confirm the block, with the reason the student reads.
create function public.appeal_confirm_block(p_appeal_id uuid, p_reason text) returns public.submission_appeals
language plpgsql volatile security definer set search_path = '' as $$
declare
  reason text := btrim(coalesce(p_reason, ''));
  ap public.submission_appeals;
  result public.submission_appeals;
begin
  perform public.review_require_moderator();
  if reason = '' then
    raise exception 'Motivul confirmării este obligatoriu' using errcode = '22023';
  end if;
  if char_length(reason) > 2000 then
    raise exception 'Motivul poate avea cel mult 2000 de caractere' using errcode = '22023';
  end if;
  ap := public.appeal_lock_pending(p_appeal_id);
  update public.submission_appeals set status = 'confirmed', decision_reason = reason, decided_at = now()
  where id = ap.id returning * into result;
  insert into public.submission_appeal_audit (appeal_id, submission_id, actor_id, action, reason)
  values (ap.id, ap.submission_id, auth.uid(), 'confirm', reason);
  return result;
end
$$;

-- Live outcome on the student's case page and My Progress.
do $$
begin
  if not exists (select 1 from pg_publication_tables where pubname = 'supabase_realtime'
                 and schemaname = 'public' and tablename = 'submission_appeals') then
    alter publication supabase_realtime add table public.submission_appeals;
  end if;
end
$$;
select realtime.sync_triggers();

-- Model answer in the review screen ----------------------------------------------------

-- review_update_case (011) learns the model answer: its field update is kept, unchanged, as
-- review_update_case_fields (copied from the catalog rather than repeated here; a DO block
-- because sqlc, which reads these files, does not follow ALTER FUNCTION ... RENAME), and the
-- public function stores p_case.model_answer (when the key is present) in the same
-- transaction, adding it to the edit's audit row.
do $$
begin
  execute replace(pg_get_functiondef('public.review_update_case(uuid, jsonb)'::regprocedure),
                  'FUNCTION public.review_update_case(', 'FUNCTION public.review_update_case_fields(');
  revoke execute on function public.review_update_case_fields(uuid, jsonb) from public, anon, authenticated;
end
$$;

create or replace function public.review_update_case(p_case_id uuid, p_case jsonb) returns public.cases
language plpgsql volatile security definer set search_path = '' as $$
declare
  result public.cases := public.review_update_case_fields(p_case_id, p_case);
  before text;
  after text;
begin
  if p_case ? 'model_answer' then
    after := nullif(btrim(coalesce(p_case ->> 'model_answer', '')), '');
    select m.model_answer into before from public.case_model_answers m where m.case_id = p_case_id for update;
    if after is null then
      delete from public.case_model_answers where case_id = p_case_id;
    else
      insert into public.case_model_answers (case_id, model_answer) values (p_case_id, after)
      on conflict (case_id) do update set model_answer = excluded.model_answer, updated_at = now();
    end if;
    if before is distinct from after then
      update public.case_audit
      set old_values = coalesce(old_values, '{}') || jsonb_build_object('model_answer', before),
          new_values = coalesce(new_values, '{}') || jsonb_build_object('model_answer', after)
      where id = (select max(id) from public.case_audit where case_id = p_case_id and action = 'edit');
    end if;
  end if;
  return result;
end
$$;

revoke execute on function public.case_submissions_check_previous(), public.case_submissions_freeze_appealed(),
  public.request_human_review(uuid), public.appeal_queue(), public.appeal_lock_pending(uuid), public.appeal_release(uuid),
  public.appeal_confirm_block(uuid, text), public.review_update_case(uuid, jsonb), public.ai_check_passed(text, numeric)
  from public, anon;
revoke execute on function public.case_submissions_check_previous(), public.case_submissions_freeze_appealed(),
  public.appeal_lock_pending(uuid) from authenticated;
grant execute on function public.request_human_review(uuid), public.appeal_queue(), public.appeal_release(uuid),
  public.appeal_confirm_block(uuid, text), public.review_update_case(uuid, jsonb), public.ai_check_passed(text, numeric)
  to authenticated, service_role;
