-- Statements that PostgreSQL planned again on every call (issue 27: the database's CPU
-- per request at 400 simulated students, where planning was a fifth of statement time).
-- Answers are unchanged; each item has a test that counts the planner's runs.
--
-- 1. The authorship rules, ai_check_passed and ai_check_cleared, were SQL functions with
-- their own search_path. Such a function is never inlined: each statement that calls one
-- (the gateway before grading, every submissions_with_details read, twice per row) parsed
-- and planned its body again, and ai_check_cleared in turn called ai_check_passed. Without
-- the SET clause they inline into the calling statement as plain expressions. Every name
-- in them is schema-qualified (operators too), so the caller's search_path cannot change
-- their meaning. CREATE OR REPLACE keeps their grants.
create or replace function public.ai_check_passed(p_decision text, p_probability numeric) returns boolean
language sql immutable as $$
  select case when coalesce(p_decision, '') operator(pg_catalog.<>) '' then pg_catalog.upper(p_decision) operator(pg_catalog.=) 'PASSED'
              else p_probability is not null and p_probability operator(pg_catalog.<=) 30::pg_catalog.numeric end
$$;

create or replace function public.ai_check_cleared(p_decision text, p_probability numeric) returns boolean
language sql immutable as $$
  select public.ai_check_passed(p_decision, p_probability)
      or pg_catalog.upper(coalesce(p_decision, '')) operator(pg_catalog.=) 'RELEASED'
$$;

-- 2. case_submissions_freeze_appealed runs before every update of a submission, and its
-- condition holds a subquery, so each run planned it anew. Only an edit of the text or the
-- difficulty can be refused, so the trigger now fires only for those: the gateway's status,
-- check and grade updates no longer call it.
drop trigger case_submissions_freeze_appealed on public.case_submissions;
create trigger case_submissions_freeze_appealed before update on public.case_submissions
  for each row
  when (new.submission_text is distinct from old.submission_text or new.difficulty_rating is distinct from old.difficulty_rating)
  execute function public.case_submissions_freeze_appealed();

-- 3. The AI gateway reads the texts of a case's articles before every model call, joining
-- the cited (code, number) pairs to code_articles. Its generic plan (a nested loop over the
-- primary key) is estimated for ten pairs, a custom plan for the few a case cites, so
-- PostgreSQL kept planning it per call. Inside a PL/pgSQL function with a generic plan it is
-- planned once per connection. Position i (1-based) names the pair; a pair not in the codes
-- has no row.
create function casus_meta.article_texts(p_codes text[], p_numbers text[]) returns table (pos int, article text)
language plpgsql stable set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return query
    select r.i::int, coalesce(nullif(a.title, '') || E'\n', '') || a.body
    from unnest(p_codes, p_numbers) with ordinality as r(code, number, i)
    join public.code_articles a on a.code = r.code and a.article_number = r.number;
end
$$;
revoke all on function casus_meta.article_texts(text[], text[]) from public;
