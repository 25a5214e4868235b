-- Change capture moves off the commit path: the servers read the changes of the
-- supabase_realtime publication (and the broadcast rows of realtime.messages) from the
-- WAL through one logical replication slot per database (pgoutput), instead of a trigger
-- on every published table writing realtime.changes and taking the NOTIFY queue lock at
-- every commit. See ARCHITECTURE.md, "Realtime".

-- No capture trigger remains on any table.
do $$
declare
  t record;
begin
  for t in select tg.tgrelid::regclass as rel from pg_trigger tg where tg.tgname = 'casus_realtime_capture' loop
    execute format('drop trigger casus_realtime_capture on %s', t.rel);
  end loop;
end
$$;
drop trigger if exists casus_realtime_message on realtime.messages;
drop function if exists realtime.casus_notify_message();
drop function if exists realtime.capture_change();
drop table if exists realtime.changes;

-- Broadcast from the database travels through the same slot, in its own publication as on
-- Supabase (supabase_realtime_messages_publication): the WAL of realtime.messages. Probe
-- rows (realtime.casus_authorization_probe) are rolled back, so they never reach the WAL
-- stream; rows without an event are skipped by the servers.
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime_messages_publication') then
    create publication supabase_realtime_messages_publication for table realtime.messages with (publish = 'insert');
  end if;
end
$$;

-- realtime.sync_triggers() keeps its name for the migrations and scripts that call it
-- after changing the publication; it no longer creates triggers. It gives published tables
-- with the default replica identity REPLICA IDENTITY FULL, so that the WAL carries the old
-- row of an UPDATE or DELETE: the servers check a deleted row's visibility against the
-- subscriber's SELECT policies on that old row (only its primary key is ever sent). It
-- then tells the servers to reload their list of published tables.
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
    where pt.pubname = 'supabase_realtime' and c.relreplident = 'd' and c.relkind = 'r'
      and pg_has_role(c.relowner, 'USAGE')
  loop
    execute format('alter table %s replica identity full', t.rel);
  end loop;
  perform pg_notify('casus_realtime_changes', 'reload');
end
$$;
revoke execute on function realtime.sync_triggers() from public;

select realtime.sync_triggers();
