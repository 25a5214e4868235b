#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 when the machine has one
# installed but stopped. If none is installed, the server falls back to a private
# cluster of its own (see server/internal/db/cluster.go), so this never fails hard.
#
# Realtime reads changes through logical replication (one slot per database, see
# ARCHITECTURE.md): a local cluster whose wal_level is not logical gets it here, with
# enough slots and WAL senders for the test suite's parallel databases and a bound on the
# WAL a stopped Casus may pin (and room for the suite's parallel servers' connections). That needs a restart, so it is done only when wal_level is
# not already logical (a server that already decodes logically is never restarted).
set -u
url=${CASUS_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}

logical() {
  if ! command -v psql >/dev/null 2>&1; then return 0; fi
  local level
  level=$(psql "$url" -XAtc 'show wal_level' 2>/dev/null) || return 0 # not ours to judge
  [ "$level" = logical ] && return 0
  echo "ensure-postgres: wal_level is $level; realtime needs logical" >&2
  return 1
}

make_logical() {
  command -v pg_ctlcluster >/dev/null 2>&1 || {
    echo "ensure-postgres: set wal_level = logical on this server and restart it (realtime needs it)" >&2
    return 0
  }
  psql "$url" -XqAt \
    -c "alter system set wal_level = logical" \
    -c "alter system set max_replication_slots = 64" \
    -c "alter system set max_wal_senders = 64" \
    -c "alter system set max_connections = 300" \
    -c "alter system set max_slot_wal_keep_size = '4GB'" >/dev/null || return 0
  echo "ensure-postgres: set wal_level = logical (64 slots, max_slot_wal_keep_size 4GB); restarting PostgreSQL" >&2
  for v in $(ls /etc/postgresql 2>/dev/null); do
    pg_ctlcluster --skip-systemctl-redirect "$v" main restart 2>/dev/null || pg_ctlcluster "$v" main restart 2>/dev/null || true
  done
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && return 0; sleep 0.5; done
}

# A slot left by a killed test run pins WAL; the bound needs only a reload, so it is set
# even on a server that already decodes logically.
bound_slots() {
  command -v psql >/dev/null 2>&1 || return 0
  [ "$(psql "$url" -XAtc 'show max_slot_wal_keep_size' 2>/dev/null)" = "-1" ] || return 0
  psql "$url" -XqAt -c "alter system set max_slot_wal_keep_size = '4GB'" -c "select pg_reload_conf()" >/dev/null 2>&1 || true
}

if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  logical || make_logical
  bound_slots
  exit 0
fi
if command -v pg_ctlcluster >/dev/null 2>&1; then
  for v in $(ls /etc/postgresql 2>/dev/null); do
    pg_ctlcluster --skip-systemctl-redirect "$v" main start 2>/dev/null || pg_ctlcluster "$v" main start 2>/dev/null || true
  done
  for _ in $(seq 1 30); do
    if pg_isready -q -h 127.0.0.1 -p 5432; then
      logical || make_logical
      bound_slots
      exit 0
    fi
    sleep 0.5
  done
fi
echo "ensure-postgres: no PostgreSQL on 127.0.0.1:5432; casus will start a private cluster if the binaries exist" >&2
exit 0
