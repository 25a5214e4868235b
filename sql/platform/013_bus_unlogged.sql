-- The bus's large bodies (realtime/bus.go) are written once and read within a second by
-- every instance. Unlogged: no WAL for the walsender to read past, and worthless after a
-- crash anyway (PostgreSQL empties the table then). Bytes, not jsonb: PostgreSQL parsed
-- each body on insert and rendered it again on every read, for nothing.
truncate realtime.bus_messages;
alter table realtime.bus_messages set unlogged;
alter table realtime.bus_messages alter column body type bytea using convert_to(body::text, 'UTF8');
-- Stored as they come: compressing a body that is read once, a moment later, costs more
-- than it saves.
alter table realtime.bus_messages alter column body set storage external;
