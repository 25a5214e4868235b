#!/usr/bin/env bash
# Runs a command against a freshly started Casus stack: a new database on the local
# PostgreSQL, a real SMTP sink, the scripted fake AI upstream (when built) and the server,
# all on loopback ports. Exports CASUS_URL, ANON_KEY, SERVICE_ROLE_KEY, SMTP_SINK_URL,
# DATABASE_URL (and FAKE_AI_URL) to the command, then tears everything down.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
./scripts/ensure-postgres.sh
[ -x bin/casus ] || make build/server >/dev/null

admin=${CASUS_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
db="casus_e2e_$(date +%s)_$RANDOM"
dburl="${admin%%\?*}"; dburl="${dburl%/*}/$db?sslmode=disable"
psql "$admin" -qc "create database $db" >/dev/null

state=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  rm -rf "$state"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
smtp_port=$(port); sink_port=$(port); app_port=$(port); ai_port=$(port)

(cd frontend && exec node tests/support/smtp-sink.mjs "$smtp_port" "$sink_port") >"$state/sink.log" 2>&1 &
pids+=($!)

ai_env=()
if ./bin/casus fake-ai --addr "127.0.0.1:$ai_port" >"$state/fake-ai.log" 2>&1 & then
  ai_pid=$!
  sleep 0.3
  if kill -0 "$ai_pid" 2>/dev/null; then
    pids+=("$ai_pid")
    export FAKE_AI_URL="http://127.0.0.1:$ai_port"
    ai_env=(AI_PROVIDER=anthropic ANTHROPIC_API_KEY=fake-key "ANTHROPIC_BASE_URL=$FAKE_AI_URL" AI_MODEL=claude-test)
  fi
fi

export JWT_SECRET="with-server-secret-$(date +%s)-0123456789abcdef"
env DATABASE_URL="$dburl" CASUS_ADDR="127.0.0.1:$app_port" SITE_URL="http://127.0.0.1:$app_port" \
  SMTP_HOST=127.0.0.1 SMTP_PORT="$smtp_port" CASUS_STATE_DIR="$state" FRONTEND_DIR="$root/frontend/dist" \
  RATE_LIMIT_SIGNIN=1000 RATE_LIMIT_SIGNUP=1000 RATE_LIMIT_EMAIL_SENT=1000 RATE_LIMIT_VERIFY=1000 \
  "${ai_env[@]}" ./bin/casus serve --seed >"$state/server.log" 2>&1 &
pids+=($!)

for _ in $(seq 1 200); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$app_port/config.json" 2>/dev/null; then break; fi
  if ! kill -0 "${pids[-1]}" 2>/dev/null; then cat "$state/server.log" >&2; exit 1; fi
  sleep 0.1
done
eval "$(./bin/casus keys | sed 's/^/export /')"
export CASUS_URL="http://127.0.0.1:$app_port" SMTP_SINK_URL="http://127.0.0.1:$sink_port" DATABASE_URL="$dburl"
export SERVICE_ROLE_KEY ANON_KEY

set +e
"$@"
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "--- server log (last 40 lines)" >&2
  tail -40 "$state/server.log" >&2
fi
exit $status
