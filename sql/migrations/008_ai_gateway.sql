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
