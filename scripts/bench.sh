#!/usr/bin/env bash
# Runs every benchmark in turn. Each prints its figures as ratios to a baseline measured
# in the same run, so results stay comparable on a noisy machine. Usage:
#   scripts/bench.sh            all benchmarks
#   scripts/bench.sh auth rest  only those
#   scripts/bench.sh load       the load run (scripts/load: 200 students, 3 minutes; not in the default set)
# BENCH_FLAGS_<NAME> passes flags to one benchmark, e.g. the REST speed guard against main:
#   BENCH_FLAGS_REST="-baseline-rev main" scripts/bench.sh rest
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-postgres.sh
all=(auth rest search ai realtime writes)
sel=("$@")
[ ${#sel[@]} -gt 0 ] || sel=("${all[@]}")
for b in "${sel[@]}"; do
  if [ "$b" = load ]; then
    echo "=== load"
    go run ./scripts/load
  elif [ -d "scripts/bench/$b" ]; then
    echo "=== bench: $b"
    flags="BENCH_FLAGS_${b^^}"
    # shellcheck disable=SC2086 # the flags are words
    go run "./scripts/bench/$b" ${!flags:-}
  else
    echo "=== bench: $b (not present)"
  fi
done
