-- Rules defined once (issue 31, part 4). Whether the authorship check lets a submission go
-- on to grading was written in SQL (013, 015), in the gateway's Go and in the web app.
-- The database owns it now: ai_check_cleared is the spec's pass rule (ai_check_passed,
-- section 5) or a moderator's release after an appeal. The gateway asks it before grading,
-- and My Progress's view and the solution panel read it as submissions_with_details.ai_cleared.

create function public.ai_check_cleared(p_decision text, p_probability numeric) returns boolean
language sql immutable set search_path = '' as $$
  select public.ai_check_passed(p_decision, p_probability) or upper(coalesce(p_decision, '')) = 'RELEASED'
$$;
revoke all on function public.ai_check_cleared(text, numeric) from public, anon;
grant execute on function public.ai_check_cleared(text, numeric) to authenticated, service_role;

create or replace view public.submissions_with_details with (security_invoker = true) as
select s.id, s.user_id, s.case_id, c.case_code, c.title as case_title, s.score,
       case when s.score ~ '^\s*[0-9]+(\.[0-9]+)?\s*/\s*[0-9]*[1-9][0-9]*\s*$'
            then round(100 * split_part(s.score, '/', 1)::numeric / split_part(s.score, '/', 2)::numeric, 2)
            else s.score_value end as score_value,
       s.feedback_text, s.status, s.difficulty_rating, s.submitted_at, s.feedback_at,
       case when s.status = 'graded' then 'graded'
            when s.status = 'grading' then 'grading'
            when s.ai_checked_at is not null and not public.ai_check_cleared(s.ai_decision, s.ai_probability) then 'blocked'
            when s.ai_failed_at is not null then 'failed'
            else 'pending' end as state,
       s.ai_checked_at is not null and public.ai_check_cleared(s.ai_decision, s.ai_probability) as ai_cleared
from public.case_submissions s
join public.cases c on c.id = s.case_id;
