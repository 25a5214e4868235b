-- Grade and flag for a moderator (issue 33; grader-review-3 §6 items 2 and 7). The
-- gateway grades a submission whose authorship check is uncertain, or that looks like an
-- attempt on the grader, and flags it here for a human to look at:
--   authorship_uncertain   the check found traces that do not block (one paragraph in
--                          another language, one element of another case) or the model
--                          proposed blocking without a trace it could quote: the student
--                          passes, a moderator reads the quotes;
--   score_lines_removed    score-shaped lines ("PUNCTAJ TOTAL: …", "2.2.1 …: 20/20",
--                          "Calificativ: …") were replaced in the text the grader read;
--   high_score_short_text  a grade of 90 or more on a text under 250 words;
--   addresses_grader       the text speaks to the grader (the corrector, the points, the
--                          rubric…), so its free-text feedback was withheld.
-- evidence holds quotes from the student's text; detail the server's one-line account
-- (in Romanian) where a quote says nothing (the score and the word count).
--
-- Who sees them: moderators and admins. A flag is a note for triage, not a finding: it
-- changes neither the grade nor what the student reads, and most flagged texts are honest.
-- Showing the student a "suspected" label would alarm the honest ones and teach the others
-- which lines to avoid; what a student is owed (the withheld comments, a blocked check's
-- quoted reasons) is already in their feedback. So the student neither reads nor writes
-- flags. Only the gateway (owner) writes them; a moderator resolves them through
-- resolve_submission_flags, which records who and when, and a resolved flag stays resolved.

create table public.submission_flags (
  id uuid primary key default gen_random_uuid(),
  submission_id uuid not null references public.case_submissions (id) on delete cascade,
  reason text not null check (reason in ('authorship_uncertain', 'score_lines_removed', 'high_score_short_text', 'addresses_grader')),
  evidence text[] not null default '{}' check (cardinality(evidence) <= 20),
  detail text check (char_length(detail) <= 500),
  created_at timestamptz not null default now(),
  -- No foreign key: who resolved stays on record when that account is deleted (as in
  -- submission_appeal_audit).
  resolved_by uuid,
  resolved_at timestamptz,
  unique (submission_id, reason),
  constraint submission_flags_resolution check ((resolved_at is null) = (resolved_by is null))
);
create index submission_flags_open_idx on public.submission_flags (created_at) where resolved_at is null;
alter table public.submission_flags enable row level security;
revoke all on public.submission_flags from public, anon, authenticated;
grant all on public.submission_flags to service_role;
grant select on public.submission_flags to authenticated;
create policy submission_flags_read_moderators on public.submission_flags
  for select to authenticated using ((select public.is_moderator()));
select public.forbid_anonymous_writes('public.submission_flags');

-- The moderators' list: every submission with an open flag, oldest flag first, with what
-- is needed to judge it (the text, the grade, the check's reasons, the open flags).
create function public.flag_queue()
returns table (submission_id uuid, case_code text, case_title text, student_username text, submission_text text,
               status text, score_value numeric, difficulty_rating int, submitted_at timestamptz,
               ai_justification text, flags jsonb)
language plpgsql stable security definer set search_path = '' as $$
begin
  perform public.review_require_moderator();
  return query
    select s.id, c.case_code, c.title, p.username, s.submission_text, s.status, s.score_value, s.difficulty_rating,
           s.submitted_at, s.ai_justification,
           f.flags
    from (select fl.submission_id,
                 min(fl.created_at) as first_at,
                 jsonb_agg(jsonb_build_object('id', fl.id, 'reason', fl.reason, 'evidence', to_jsonb(fl.evidence),
                                              'detail', fl.detail, 'created_at', fl.created_at) order by fl.created_at, fl.reason) as flags
          from public.submission_flags fl
          where fl.resolved_at is null
          group by fl.submission_id) f
    join public.case_submissions s on s.id = f.submission_id
    join public.cases c on c.id = s.case_id
    left join public.user_profiles p on p.id = s.user_id
    order by f.first_at, s.id;
end
$$;

-- Resolves the open flags the moderator saw (their ids, so a flag raised meanwhile stays
-- open), recording who and when; answers how many it resolved.
create function public.resolve_submission_flags(p_flag_ids uuid[]) returns int
language plpgsql volatile security definer set search_path = '' as $$
declare
  n int;
begin
  perform public.review_require_moderator();
  if auth.uid() is null then
    raise exception 'permission denied: sign in as a moderator to resolve flags' using errcode = '42501';
  end if;
  if coalesce(cardinality(p_flag_ids), 0) = 0 or cardinality(p_flag_ids) > 100 then
    raise exception 'Alege între 1 și 100 de semnalări.' using errcode = '22023';
  end if;
  update public.submission_flags set resolved_by = auth.uid(), resolved_at = now()
  where id = any (p_flag_ids) and resolved_at is null;
  get diagnostics n = row_count;
  if n = 0 then
    raise exception 'Semnalările au fost deja rezolvate.' using errcode = '22023';
  end if;
  return n;
end
$$;

revoke execute on function public.flag_queue(), public.resolve_submission_flags(uuid[]) from public, anon;
grant execute on function public.flag_queue(), public.resolve_submission_flags(uuid[]) to authenticated, service_role;

-- An uncertain verdict's flag is kept with the verdict ({"evidence": [...], "detail": …}),
-- so the same text sent again, which gets the stored verdict without the model, is
-- flagged again; null when the check had no doubt.
alter table casus_meta.ai_verdicts add column doubt jsonb;
