#!/usr/bin/env bash
# Installs what the test suite needs on a fresh machine: Debian's chromium for the
# browser tests (Playwright cannot download its own browser here) and a running
# PostgreSQL. Idempotent: does nothing that is already done.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# HAProxy in front of several instances (scripts/cluster.sh, WITH_SERVER_CLUSTER).
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
command -v psql >/dev/null 2>&1 || need+=(postgresql postgresql-contrib)
fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-test-deps: apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# PostGIS for the data API's GeoJSON tests (the server's own PostgreSQL major version).
if ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
  major=$(ls /usr/lib/postgresql | sort -n | tail -1)
  echo "install-test-deps: apt-get install postgresql-$major-postgis-3"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "postgresql-$major-postgis-3" >/dev/null
fi
"$(dirname "$0")/ensure-postgres.sh"
