-- Realtime answers joins from its cached list of published tables (a join never reads the
-- catalog). sync_triggers(), which runs after every change of the supabase_realtime
-- publication (the event trigger, or migrations themselves), now also tells the servers
-- to reload that list: NOTIFY casus_realtime_changes 'reload', delivered at commit.
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
  perform pg_notify('casus_realtime_changes', 'reload');
end
$$;
