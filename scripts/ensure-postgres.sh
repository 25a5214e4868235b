#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 when the machine has one
# installed but stopped. If none is installed, the server falls back to a private
# cluster of its own (see server/internal/db/cluster.go), so this never fails hard.
set -u
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then exit 0; fi
if command -v pg_ctlcluster >/dev/null 2>&1; then
  for v in $(ls /etc/postgresql 2>/dev/null); do
    pg_ctlcluster --skip-systemctl-redirect "$v" main start 2>/dev/null || pg_ctlcluster "$v" main start 2>/dev/null || true
  done
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && exit 0; sleep 0.5; done
fi
echo "ensure-postgres: no PostgreSQL on 127.0.0.1:5432; casus will start a private cluster if the binaries exist" >&2
exit 0
