-- What became of a submission, for My Progress (issue 19, bug 6). A submission that the
-- AI check blocked, or whose check or grading failed upstream, stayed 'submitted' and read
-- "În curs" forever. The gateway now records an upstream failure (ai_failed_at, cleared
-- when a later call succeeds), and the view names the state:
--   graded · grading · blocked (the check failed and no human released it) ·
--   failed (the last model call failed: the student can try again) · pending.

alter table public.case_submissions add column ai_failed_at timestamptz;

create or replace view public.submissions_with_details with (security_invoker = true) as
select s.id, s.user_id, s.case_id, c.case_code, c.title as case_title, s.score,
       case when s.score ~ '^\s*[0-9]+(\.[0-9]+)?\s*/\s*[0-9]*[1-9][0-9]*\s*$'
            then round(100 * split_part(s.score, '/', 1)::numeric / split_part(s.score, '/', 2)::numeric, 2)
            else s.score_value end as score_value,
       s.feedback_text, s.status, s.difficulty_rating, s.submitted_at, s.feedback_at,
       case when s.status = 'graded' then 'graded'
            when s.status = 'grading' then 'grading'
            when s.ai_checked_at is not null and not public.ai_check_passed(s.ai_decision, s.ai_probability)
                 and upper(coalesce(s.ai_decision, '')) <> 'RELEASED' then 'blocked'
            when s.ai_failed_at is not null then 'failed'
            else 'pending' end as state
from public.case_submissions s
join public.cases c on c.id = s.case_id;

-- The tutor's rounds as the gateway counts them (issue 19, bug 7): the chat shows
-- "Runda N din 4" and, once the four are used, sends the student to the solution instead
-- of an input that can only get the closing message. The caller's own count only.
create function public.tutor_rounds_used(p_case_id uuid) returns integer
language sql stable security definer set search_path = '' as $$
  select count(*)::integer from casus_meta.tutor_turns
  where user_id = auth.uid() and case_id = p_case_id and role = 'user'
$$;
revoke all on function public.tutor_rounds_used(uuid) from public, anon;
grant execute on function public.tutor_rounds_used(uuid) to authenticated, service_role;
