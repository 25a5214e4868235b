-- AI gateway: what the server records about a submission (AI-authorship check and the
-- per-criterion breakdown of a grade) and per-user daily usage for quotas. Students have
-- no privilege on any of these columns or on ai_usage: only the gateway (owner) writes.
alter table public.case_submissions
  add column ai_probability numeric(5, 2) check (ai_probability between 0 and 100),
  add column ai_decision text,
  add column ai_justification text,
  add column ai_checked_at timestamptz,
  add column score_breakdown jsonb;

create table casus_meta.ai_usage (
  user_id uuid not null references auth.users (id) on delete cascade,
  day date not null default current_date,
  task text not null check (task in ('tutor', 'detect', 'grade', 'generate', 'classify')),
  requests int not null default 0,
  tokens bigint not null default 0,
  primary key (user_id, day, task)
);

-- A student may still edit a submission before it is graded, but the AI check belongs to
-- the text it checked: changing the text clears the check (and its note in
-- feedback_text, which before grading can only be that note), so grading needs a fresh
-- check of the new text. Runs after case_submissions_guard_scores (name order), which
-- rejects the student's own changes to those columns.
create function public.case_submissions_reset_ai_check() returns trigger
language plpgsql as $$
begin
  if new.submission_text is distinct from old.submission_text and new.status = 'submitted' then
    new.ai_probability := null;
    new.ai_decision := null;
    new.ai_justification := null;
    new.ai_checked_at := null;
    new.feedback_text := null;
  end if;
  return new;
end
$$;
create trigger case_submissions_reset_ai_check before update on public.case_submissions
  for each row execute function public.case_submissions_reset_ai_check();
revoke execute on function public.case_submissions_reset_ai_check() from public, anon, authenticated;
