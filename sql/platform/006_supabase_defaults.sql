-- What a Supabase project gives a table created later in public (by a migration of an
-- app, or by hand with psql): the API roles may use it, and row-level security decides
-- which rows. So a table made with `create table ... ; alter table ... enable row level
-- security; create policy ...` is served by /rest/v1 exactly as on Supabase. (Supabase's
-- known trap follows too: such a table with RLS off is readable by anon; the server logs
-- a warning naming every exposed table in that state.) Default privileges belong to the
-- role that creates the objects: here the migrating role, the database's owner.
-- (Functions already get EXECUTE for the API roles by default, from 001.)
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

-- Supabase's pgrst_ddl_watch: after any DDL, tell schema caches (ours listens on the
-- pgrst channel, as PostgREST does) to reload, so new tables and functions are served
-- without a restart. NOTIFY is delivered at commit, once per transaction. Event triggers
-- need a superuser; elsewhere `casus migrate` and a restart still reload.
create or replace function casus_meta.notify_schema_reload() returns event_trigger
language plpgsql as $$
begin
  notify pgrst, 'reload schema';
end
$$;
revoke execute on function casus_meta.notify_schema_reload() from public;

do $$
begin
  if (select rolsuper from pg_roles where rolname = current_user) then
    drop event trigger if exists pgrst_ddl_watch;
    create event trigger pgrst_ddl_watch on ddl_command_end
      execute function casus_meta.notify_schema_reload();
  end if;
end
$$;
