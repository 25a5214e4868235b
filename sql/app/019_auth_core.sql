-- Anonymous users (GoTrue's signInAnonymously, the "Încearcă o speță" visitors) run as
-- authenticated, like everyone signed in; their token's is_anonymous claim tells them
-- apart. They may read what a signed-in student reads, but write nothing: every table of
-- the app under RLS gets restrictive policies that refuse inserts, updates and deletes to
-- a token with is_anonymous true (restrictive: they hold whatever other policy allows).
-- A table added later calls public.forbid_anonymous_writes('public.<table>') in its own
-- migration; domaindb's TestAnonymousUsersWriteNothing checks every table has them.
create function public.forbid_anonymous_writes(t regclass) returns void
language plpgsql set search_path = '' as $$
declare
  permanent constant text := $p$coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false) is false$p$;
begin
  execute format('create policy "anonymous users insert nothing" on %s as restrictive for insert to authenticated with check (%s)', t, permanent);
  execute format('create policy "anonymous users update nothing" on %s as restrictive for update to authenticated using (%s) with check (%s)', t, permanent, permanent);
  execute format('create policy "anonymous users delete nothing" on %s as restrictive for delete to authenticated using (%s)', t, permanent);
end
$$;
revoke execute on function public.forbid_anonymous_writes(regclass) from public, anon, authenticated, service_role;

select public.forbid_anonymous_writes(c.oid::regclass)
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relrowsecurity
order by c.relname;
