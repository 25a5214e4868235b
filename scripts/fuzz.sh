#!/usr/bin/env bash
# Short fuzz runs (part of `make test`): the data API's Parse, Plan and Statement for every plan kind,
# the realtime frame codec, and the JSON string escaper against encoding/json.
# Budgets are execution counts (about 10 s each here), not durations: with a duration, Go 1.26's
# fuzz coordinator can report a bare "context deadline exceeded" at the deadline without any
# failing input (go.dev/issue/75804, fixed in Go 1.27). FUZZTIME=1m (or 1000000x) for longer runs.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz() { # package target default-budget
  go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-$3}"
}
fuzz ./server/internal/postgrest/ FuzzStatement 40000x
fuzz ./server/internal/realtime/phoenix/ FuzzDecode 300000x
fuzz ./server/internal/jsonx/ FuzzAppendString 150000x
