#!/usr/bin/env bash
# Short fuzz runs (part of `make test`): the data API's query parser and SQL builder,
# the realtime frame codec, and the auth hot path's token check against golang-jwt. FUZZTIME=1m for longer runs.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-10s}
go test ./server/internal/postgrest/ -run '^$' -fuzz '^FuzzQueryToSQL$' -fuzztime "$t"
go test ./server/internal/realtime/phoenix/ -run '^$' -fuzz '^FuzzDecode$' -fuzztime "$t"
go test ./server/internal/authn/ -run '^$' -fuzz '^FuzzVerifySession$' -fuzztime "$t"
