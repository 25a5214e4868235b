-- Rate-limit buckets shared by every Casus instance on this database, so N instances
-- behind a load balancer enforce one limit (GoTrue's per-IP and per-address limits).
-- One row per bucket key: the tokens left at updated_at; a bucket refills at refill
-- tokens a second up to capacity, and is deleted once full_at has passed (a full bucket
-- and a missing one answer alike).
--
-- Unlogged: a bucket is written on every limited request, and its history is worth
-- nothing after a crash (PostgreSQL empties unlogged tables then, which only forgives the
-- requests counted so far) nor on a standby. It writes no WAL, so it neither slows
-- commits nor feeds logical replication.
create unlogged table casus_meta.rate_limits (
  key text primary key,
  tokens double precision not null,
  capacity integer not null,
  refill double precision not null, -- tokens per second
  updated_at timestamptz not null,
  full_at timestamptz not null
);
create index rate_limits_full_at on casus_meta.rate_limits (full_at);

-- Only the server's owner connection touches it.
revoke all on casus_meta.rate_limits from public;
