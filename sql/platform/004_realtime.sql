-- Realtime change capture. Tables opt in by joining the supabase_realtime publication,
-- as on Supabase; a trigger on each published table records every change in
-- realtime.changes and NOTIFYs its id. We chose triggers + NOTIFY over logical
-- replication: it needs no wal_level=logical (a restart of a shared server) nor a
-- replication slot that could pin WAL forever if Casus is down, and storing the row
-- in a table lifts NOTIFY's 8000-byte payload limit. See ARCHITECTURE.md.
create schema if not exists realtime;

create table realtime.changes (
  id bigserial primary key,
  schema_name text not null,
  table_name text not null,
  type text not null check (type in ('INSERT', 'UPDATE', 'DELETE')),
  record jsonb,
  old_record jsonb,
  commit_timestamp timestamptz not null default now()
);
create index changes_commit_timestamp_idx on realtime.changes (commit_timestamp);

-- Bodies of cross-instance messages too large for a NOTIFY payload.
create table realtime.bus_messages (
  id bigserial primary key,
  body jsonb not null,
  created_at timestamptz not null default now()
);

create or replace function realtime.capture_change() returns trigger
language plpgsql security definer set search_path = pg_catalog, realtime as $$
declare
  change_id bigint;
begin
  insert into realtime.changes (schema_name, table_name, type, record, old_record)
  values (tg_table_schema, tg_table_name, tg_op,
          case when tg_op in ('INSERT', 'UPDATE') then to_jsonb(new) end,
          case when tg_op in ('UPDATE', 'DELETE') then to_jsonb(old) end)
  returning id into change_id;
  perform pg_notify('casus_realtime_changes', change_id::text);
  return null;
end
$$;

do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Puts the capture trigger on every published table and removes it from tables that
-- left the publication. Migrations call it after changing the publication; the event
-- trigger below also runs it after ALTER PUBLICATION where we may create one.
create or replace function realtime.sync_triggers() returns void
language plpgsql security definer set search_path = pg_catalog as $$
declare
  t record;
begin
  for t in
    select c.oid::regclass as rel
    from pg_publication_tables pt
    join pg_namespace n on n.nspname = pt.schemaname
    join pg_class c on c.relnamespace = n.oid and c.relname = pt.tablename
    where pt.pubname = 'supabase_realtime'
      and not exists (select 1 from pg_trigger tg where tg.tgrelid = c.oid and tg.tgname = 'casus_realtime_capture')
  loop
    execute format('create trigger casus_realtime_capture after insert or update or delete on %s
                    for each row execute function realtime.capture_change()', t.rel);
  end loop;
  for t in
    select tg.tgrelid::regclass as rel
    from pg_trigger tg
    join pg_class c on c.oid = tg.tgrelid
    join pg_namespace n on n.oid = c.relnamespace
    where tg.tgname = 'casus_realtime_capture'
      and not exists (select 1 from pg_publication_tables pt
                      where pt.pubname = 'supabase_realtime' and pt.schemaname = n.nspname and pt.tablename = c.relname)
  loop
    execute format('drop trigger casus_realtime_capture on %s', t.rel);
  end loop;
end
$$;

create or replace function realtime.on_publication_change() returns event_trigger
language plpgsql as $$
begin
  perform realtime.sync_triggers();
end
$$;

-- Event triggers need a superuser; where the owner is not one, migrations call
-- realtime.sync_triggers() themselves.
do $$
begin
  if (select rolsuper from pg_roles where rolname = current_user) then
    drop event trigger if exists casus_realtime_publication;
    create event trigger casus_realtime_publication on ddl_command_end
      when tag in ('ALTER PUBLICATION') execute function realtime.on_publication_change();
  end if;
end
$$;
