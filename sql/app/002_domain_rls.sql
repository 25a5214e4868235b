-- Who may do what with the domain tables (issue 4). Default deny: every table has RLS on,
-- the API roles get only the privileges (down to columns) that some policy needs, and
-- service_role (BYPASSRLS) may do everything. The schema owner is not subject to RLS either:
-- it is the server's grading path.

-- Role of the caller, read past RLS (policies on user_profiles would otherwise recurse).
create function public.current_app_role() returns text
language sql stable security definer set search_path = '' as $$
  select coalesce((select p.role from public.user_profiles p where p.id = auth.uid()), 'user')
$$;

create function public.is_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select public.current_app_role() = 'admin'
$$;

create function public.is_moderator() returns boolean
language sql stable security definer set search_path = '' as $$
  select public.current_app_role() in ('moderator', 'admin')
$$;

-- Start from nothing, then grant what the policies below need.
revoke all on public.universities, public.user_profiles, public.cases, public.case_search, public.case_articles,
  public.case_analysis_steps, public.case_hints, public.case_submissions, public.case_completions,
  public.chat_conversations, public.feedback from public, anon, authenticated;
grant all on public.universities, public.user_profiles, public.cases, public.case_search, public.case_articles,
  public.case_analysis_steps, public.case_hints, public.case_submissions, public.case_completions,
  public.chat_conversations, public.feedback to service_role;

alter table public.universities enable row level security;
alter table public.user_profiles enable row level security;
alter table public.cases enable row level security;
alter table public.case_search enable row level security;
alter table public.case_articles enable row level security;
alter table public.case_analysis_steps enable row level security;
alter table public.case_hints enable row level security;
alter table public.case_submissions enable row level security;
alter table public.case_completions enable row level security;
alter table public.chat_conversations enable row level security;
alter table public.feedback enable row level security;

-- Universities: public reference data (the sign-up page lists them before anyone signs in).
grant select on public.universities to anon, authenticated;
create policy universities_read on public.universities for select to anon, authenticated using (true);

-- Profiles: read-only to users. Own row, or every row for admins. Writes go through
-- create_user_profile and update_user_role only (no insert/update/delete grants).
grant select on public.user_profiles to authenticated;
create policy user_profiles_read_own on public.user_profiles for select to authenticated
  using (id = auth.uid() or public.is_admin());

-- Cases: every signed-in user reads; anyone signed in may add an unverified case of their
-- own; moderators and admins edit and verify; authors may delete their own unverified case
-- (the spec's client rolls a failed save back by deleting the case).
grant select on public.cases to authenticated;
grant insert (case_code, title, level, week_number, legal_problem, case_description, question,
  category, subcategory, verified, domain, user_id) on public.cases to authenticated;
grant update (case_code, title, level, week_number, legal_problem, case_description, question,
  category, subcategory, verified, domain) on public.cases to authenticated;
grant delete on public.cases to authenticated;
create policy cases_read on public.cases for select to authenticated using (true);
-- The folded search copy of code and title (maintained by a trigger), readable like cases.
grant select on public.case_search to authenticated;
create policy case_search_read on public.case_search for select to authenticated using (true);
create policy cases_insert_own_unverified on public.cases for insert to authenticated
  with check (user_id = auth.uid() and verified = false);
create policy cases_update_moderators on public.cases for update to authenticated
  using (public.is_moderator()) with check (public.is_moderator());
-- Other users' work on a case (submissions, conversations) would go with it in the cascade;
-- an author may not take that away.
create function public.case_used_by_others(p_case_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.case_submissions s where s.case_id = p_case_id and s.user_id is distinct from auth.uid())
      or exists (select 1 from public.chat_conversations c where c.case_id = p_case_id and c.user_id is distinct from auth.uid())
$$;
create policy cases_delete on public.cases for delete to authenticated
  using (public.is_moderator()
    or (user_id = auth.uid() and verified = false and not public.case_used_by_others(id)));

-- Children of a case follow it: readable by the signed-in; written by moderators, or by the
-- author while the case is unverified (saving a generated case).
create function public.can_edit_case(p_case_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select public.is_moderator() or exists (
    select 1 from public.cases c where c.id = p_case_id and c.user_id = auth.uid() and not c.verified)
$$;

grant select, delete on public.case_articles, public.case_analysis_steps, public.case_hints to authenticated;
grant insert (case_id, article_number, article_reference), update (article_number, article_reference)
  on public.case_articles to authenticated;
grant insert (case_id, step_number, step_description), update (step_number, step_description)
  on public.case_analysis_steps to authenticated;
grant insert (case_id, hint_number, hint_text), update (hint_number, hint_text)
  on public.case_hints to authenticated;

create policy case_articles_read on public.case_articles for select to authenticated using (true);
create policy case_articles_insert on public.case_articles for insert to authenticated with check (public.can_edit_case(case_id));
create policy case_articles_update on public.case_articles for update to authenticated
  using (public.can_edit_case(case_id)) with check (public.can_edit_case(case_id));
create policy case_articles_delete on public.case_articles for delete to authenticated using (public.can_edit_case(case_id));

create policy case_steps_read on public.case_analysis_steps for select to authenticated using (true);
create policy case_steps_insert on public.case_analysis_steps for insert to authenticated with check (public.can_edit_case(case_id));
create policy case_steps_update on public.case_analysis_steps for update to authenticated
  using (public.can_edit_case(case_id)) with check (public.can_edit_case(case_id));
create policy case_steps_delete on public.case_analysis_steps for delete to authenticated using (public.can_edit_case(case_id));

create policy case_hints_read on public.case_hints for select to authenticated using (true);
create policy case_hints_insert on public.case_hints for insert to authenticated with check (public.can_edit_case(case_id));
create policy case_hints_update on public.case_hints for update to authenticated
  using (public.can_edit_case(case_id)) with check (public.can_edit_case(case_id));
create policy case_hints_delete on public.case_hints for delete to authenticated using (public.can_edit_case(case_id));

-- Submissions: the owner reads and inserts their own; may edit the text and strictness only
-- while ungraded. The grading columns (score, score_value, feedback_text, feedback_at,
-- status) carry no insert/update privilege for the API roles, and the trigger below
-- rejects any change to them by anon/authenticated should a privilege ever be added.
-- Nobody but service_role deletes a submission: progress must never revert.
grant select on public.case_submissions to authenticated;
grant insert (user_id, case_id, submission_text, difficulty_rating, status) on public.case_submissions to authenticated;
grant update (submission_text, difficulty_rating) on public.case_submissions to authenticated;
create policy case_submissions_read_own on public.case_submissions for select to authenticated
  using (user_id = auth.uid());
create policy case_submissions_insert_own on public.case_submissions for insert to authenticated
  with check (user_id = auth.uid() and status = 'submitted');
create policy case_submissions_update_own on public.case_submissions for update to authenticated
  using (user_id = auth.uid() and status = 'submitted' and feedback_at is null)
  with check (user_id = auth.uid());

create function public.case_submissions_guard_scores() returns trigger
language plpgsql as $$
begin
  -- Only the API's end-user roles are restricted; the owner and service_role grade.
  if current_user not in ('anon', 'authenticated') then
    return new;
  end if;
  if tg_op = 'INSERT' then
    if new.score is not null or new.score_value is not null or new.feedback_text is not null
       or new.feedback_at is not null or new.status <> 'submitted' then
      raise exception 'grading fields are set by the grader only'
        using errcode = '42501', hint = 'Insert only submission_text, case_id, difficulty_rating and status = ''submitted''.';
    end if;
  elsif new.score is distinct from old.score or new.score_value is distinct from old.score_value
     or new.feedback_text is distinct from old.feedback_text or new.feedback_at is distinct from old.feedback_at
     or new.status is distinct from old.status or new.user_id is distinct from old.user_id
     or new.case_id is distinct from old.case_id or new.submitted_at is distinct from old.submitted_at then
    raise exception 'grading fields are set by the grader only' using errcode = '42501';
  end if;
  return new;
end
$$;
create trigger case_submissions_guard_scores before insert or update on public.case_submissions
  for each row execute function public.case_submissions_guard_scores();

-- Completion is recorded the first time a score strictly above 50 appears, dated by that
-- submission, and never removed by re-grading.
create function public.case_submissions_record_completion() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.score_value > 50 then
    insert into public.case_completions (user_id, case_id, submission_id, completed_at)
    values (new.user_id, new.case_id, new.id, new.submitted_at)
    on conflict (user_id, case_id) do update
      set completed_at = excluded.completed_at, submission_id = excluded.submission_id
      where excluded.completed_at < public.case_completions.completed_at;
  end if;
  return null;
end
$$;
create trigger case_submissions_record_completion after insert or update of score_value on public.case_submissions
  for each row execute function public.case_submissions_record_completion();

grant select on public.case_completions to authenticated;
create policy case_completions_read_own on public.case_completions for select to authenticated
  using (user_id = auth.uid());

-- Conversations: owner only.
grant select, delete on public.chat_conversations to authenticated;
grant insert (user_id, case_id, conversation_data, message_count, last_message_at),
  update (conversation_data, message_count, last_message_at) on public.chat_conversations to authenticated;
create policy chat_conversations_read_own on public.chat_conversations for select to authenticated
  using (user_id = auth.uid());
create policy chat_conversations_insert_own on public.chat_conversations for insert to authenticated
  with check (user_id = auth.uid());
create policy chat_conversations_update_own on public.chat_conversations for update to authenticated
  using (user_id = auth.uid()) with check (user_id = auth.uid());
create policy chat_conversations_delete_own on public.chat_conversations for delete to authenticated
  using (user_id = auth.uid());

-- Feedback: anyone sends; visitors anonymously with an optional e-mail, signed-in users
-- under their own id without one. Users read their own; admins read all.
grant insert (user_id, email, body) on public.feedback to anon, authenticated;
grant select on public.feedback to authenticated;
create policy feedback_insert_anon on public.feedback for insert to anon
  with check (user_id is null);
create policy feedback_insert_user on public.feedback for insert to authenticated
  with check (user_id = auth.uid() and email is null);
create policy feedback_read on public.feedback for select to authenticated
  using (user_id = auth.uid() or public.is_admin());

-- Trigger functions and internal helpers are not API calls.
revoke execute on function public.cases_normalise(), public.cases_sync_search(), public.case_submissions_guard_scores(),
  public.case_submissions_record_completion() from public, anon, authenticated;
