-- Roles as Supabase defines them. Roles are cluster-wide, so creation tolerates a
-- concurrent creator (several databases of one cluster may migrate at once in tests).
do $$
declare
  r text;
begin
  foreach r in array array['anon', 'authenticated', 'service_role', 'authenticator'] loop
    begin
      if not exists (select 1 from pg_roles where rolname = r) then
        execute format('create role %I nologin noinherit', r);
      end if;
    exception when duplicate_object or unique_violation then
      null;
    end;
  end loop;
end
$$;

-- service_role bypasses RLS, as in Supabase; the others never do.
alter role service_role bypassrls;
-- authenticator logs in (the server sets its password at start) and can only switch
-- into the three API roles: it inherits none of their rights.
alter role authenticator login noinherit;
grant anon, authenticated, service_role to authenticator;

-- The API roles see only what migrations grant them.
revoke all on schema public from public;
grant usage on schema public to anon, authenticated, service_role;
-- Pipelined requests (BEGIN; set role; statement; COMMIT in one round trip) parse every
-- statement before the role switch runs, so authenticator must be able to resolve names.
-- Schema USAGE grants no data: table privileges and RLS are checked at execution, as the
-- switched role.
grant usage on schema public to authenticator;
alter default privileges in schema public revoke execute on functions from public;
alter default privileges in schema public grant execute on functions to anon, authenticated, service_role;

-- Bookkeeping that is not part of the API (tern version table, seed state).
create schema if not exists casus_meta;

create extension if not exists pgcrypto;
create extension if not exists unaccent;
create extension if not exists pg_trgm;
