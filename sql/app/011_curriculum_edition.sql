-- Curriculum, second edition (#16).
--   * law_as_of: the date of the law a curriculum case was written against, so a later
--     change of the codes can flag the cases that cite a changed article;
--   * curriculum: the case comes from sql/seed/cases (set by the seed loader). Generated
--     cases can also end up verified and without an author, so "verified and user_id is
--     null" cannot tell the seed which cases are its own;
--   * archived_at: a curriculum case dropped from the files that students have worked on
--     is kept (their submissions, completions and conversations point at it) but unlisted.
alter table public.cases
  add column law_as_of date,
  add column curriculum boolean not null default false,
  add column archived_at timestamptz;

-- The first edition was loaded before the flag existed: verified, without an author and
-- never reviewed by a moderator (the seed does not go through the review queue).
update public.cases set curriculum = true
  where verified and user_id is null and reviewed_by is null
    and case_code ~ '^(CIV|PEN|CON)([1-9]|1[0-2])[A-Z]{3}$';

-- An archived case stays visible to moderators, to its author and to whoever has their own
-- work on it (so My Progress keeps its links); everyone else no longer finds it in the
-- sidebar, in search or by id. The rejection rule of the previous policy is unchanged.
drop policy cases_read on public.cases;
create policy cases_read on public.cases for select to authenticated
  using ((rejection_reason is null
          and (archived_at is null
               or exists (select 1 from public.case_submissions s where s.case_id = cases.id and s.user_id = (select auth.uid()))
               or exists (select 1 from public.chat_conversations v where v.case_id = cases.id and v.user_id = (select auth.uid()))))
    or user_id = (select auth.uid()) or (select public.is_moderator()));
