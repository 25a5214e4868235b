-- Private channels, as Supabase Realtime authorises them: realtime.messages with row-level
-- security. A client joining a channel with config.private may read broadcast/presence on
-- its topic when its SELECT policies let it see a row of that topic and extension, and may
-- send when its INSERT policies let it insert one; realtime.topic() names the topic being
-- checked. realtime.send() / broadcast_changes() / send_binary() insert a message, which
-- the servers deliver (NOTIFY at commit) to the topic's subscribers. Shapes follow
-- Supabase's tenant schema; the table is not partitioned (old rows are deleted after
-- 72 hours by the servers, as Supabase drops old partitions).

create table realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default timezone('utc', now()),
  inserted_at timestamp without time zone not null default timezone('utc', now()),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  constraint messages_payload_exclusive check (payload is null or binary_payload is null),
  constraint messages_pkey primary key (id, inserted_at)
);
alter table realtime.messages enable row level security;

-- Replay reads a private topic's recent broadcasts; pruning reads by age.
create index messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
create index messages_inserted_at_idx on realtime.messages (inserted_at);

-- The API roles reach realtime.messages (under RLS) and realtime.topic(); nothing else in
-- the schema is granted to them (realtime.changes and bus_messages stay the owner's).
grant usage on schema realtime to anon, authenticated, service_role;
grant insert, select, update on table realtime.messages to anon, authenticated, service_role;

-- Functions are executable by PUBLIC by default: the schema's internal ones are not for
-- API roles now that they may use the schema.
revoke execute on function realtime.capture_change() from public;
revoke execute on function realtime.sync_triggers() from public;
revoke execute on function realtime.on_publication_change() from public;

-- The topic a policy is evaluated for (set by the server during authorisation checks and
-- by realtime.send for the insert).
create or replace function realtime.topic() returns text
language sql stable as $$
  select nullif(current_setting('realtime.topic', true), '')::text;
$$;

-- Database-triggered broadcast, as Supabase defines it: runs as the caller (the insert is
-- subject to the caller's INSERT policies unless it bypasses RLS), never fails the caller's
-- transaction (a failure becomes a WARNING), adds an "id" to the payload when missing.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void language plpgsql as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    execute format('set local realtime.topic to %L', topic);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void language plpgsql as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := gen_random_uuid();
    execute format('set local realtime.topic to %L', topic);
    insert into realtime.messages (id, binary_payload, event, topic, private, extension)
    values (generated_id, payload, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

create or replace function realtime.broadcast_changes(topic_name text, event_name text, operation text,
  table_name text, table_schema text, new record, old record, level text default 'ROW')
returns void language plpgsql as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                   'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception when others then
  raise exception 'Failed to process the row: %', sqlerrm;
end
$$;

-- Delivery: a committed broadcast message is announced to every server by id (NOTIFY is
-- sent at commit, so a rolled-back send is never delivered). Rows without an event are the
-- authorisation probes below, never delivered.
create or replace function realtime.casus_notify_message() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  if new.extension = 'broadcast' and new.event is not null then
    perform pg_notify('casus_realtime_changes', 'm:' || new.id::text);
  end if;
  return null;
end
$$;
revoke execute on function realtime.casus_notify_message() from public;
create trigger casus_realtime_message after insert on realtime.messages
  for each row execute function realtime.casus_notify_message();

-- The read check inserts one probe row per extension (as the owner, like Supabase's
-- Realtime does with its own connection), then SELECTs them as the user, then rolls back.
-- Called by the server after switching to the user's role, inside a transaction it rolls
-- back; it refuses unless the server marked the transaction (a setting no REST request can
-- make). Probe rows carry no event, so they are never delivered nor replayed.
create or replace function realtime.casus_authorization_probe(ids uuid[], topic text, extensions text[])
returns void language plpgsql security definer set search_path = pg_catalog as $$
begin
  if current_setting('casus.realtime_probe', true) is distinct from 'on' then
    raise exception 'realtime authorisation probes are made by the server only' using errcode = '42501';
  end if;
  insert into realtime.messages (id, topic, extension)
  select ids[i], topic, extensions[i] from generate_subscripts(ids, 1) as i;
end
$$;
revoke execute on function realtime.casus_authorization_probe(uuid[], text, text[]) from public;
grant execute on function realtime.casus_authorization_probe(uuid[], text, text[]) to anon, authenticated, service_role;
