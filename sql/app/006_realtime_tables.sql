-- The app's live tables: grades landing (case_submissions), feedback and sign-ups for
-- the admin, conversations for My Progress. Added only if they exist, so this file does
-- not depend on the order other migrations are written in.
do $$
declare
  t text;
begin
  foreach t in array array['public.case_submissions', 'public.feedback', 'public.user_profiles', 'public.chat_conversations'] loop
    if to_regclass(t) is not null and not exists (
      select 1 from pg_publication_tables where pubname = 'supabase_realtime' and schemaname || '.' || tablename = t
    ) then
      execute format('alter publication supabase_realtime add table %s', t);
    end if;
  end loop;
end
$$;
select realtime.sync_triggers();
