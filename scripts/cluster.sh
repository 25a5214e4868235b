#!/usr/bin/env bash
# Brings up N Casus instances (default 3) on one throwaway database behind HAProxy, on
# loopback, with websockets proxied, then runs COMMAND against the proxy (or, without a
# command, prints where everything is and waits for Ctrl-C). Everything is removed at the
# end. The stack is scripts/with-server.sh's with WITH_SERVER_CLUSTER=N:
#   scripts/cluster.sh                         3 instances, wait
#   scripts/cluster.sh -n 2 make test/contract-here
#   scripts/cluster.sh bash -c 'cd frontend && npm run test:contract'
# COMMAND sees CASUS_URL (the proxy), ANON_KEY, SERVICE_ROLE_KEY, SMTP_SINK_URL,
# DATABASE_URL and CASUS_PIDS (the instances' process ids, for kill -9).
set -euo pipefail
cd "$(dirname "$0")/.."
n=3
if [ "${1:-}" = -n ]; then
  n=$2
  shift 2
fi
[[ $n =~ ^[2-9]$ ]] || { echo "usage: $0 [-n 2..9] [COMMAND...]" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- bash -c 'echo "cluster: $CASUS_URL (HAProxy) → instances $CASUS_PIDS"; echo "ANON_KEY=$ANON_KEY"; echo "SERVICE_ROLE_KEY=$SERVICE_ROLE_KEY"; echo "Ctrl-C stops it."; sleep infinity'
fi
WITH_SERVER_CLUSTER=$n exec ./scripts/with-server.sh "$@"
