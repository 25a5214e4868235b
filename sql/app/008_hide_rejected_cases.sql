-- A rejected generated case stays with its author (who reads the reason on My Progress) and
-- with moderators and admins; other students no longer find it in the sidebar, in search or
-- by id. The sub-selects make auth.uid() and is_moderator() one-time init plans, not per-row
-- calls, so listing the curriculum costs the same as before.
drop policy cases_read on public.cases;
create policy cases_read on public.cases for select to authenticated
  using (rejection_reason is null or user_id = (select auth.uid()) or (select public.is_moderator()));
