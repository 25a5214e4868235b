#!/usr/bin/env bash
# Runs a command against a freshly started Casus stack, then tears it all down:
#   - a new database casus_e2e_<random> on the local PostgreSQL (dropped afterwards),
#   - a real SMTP sink (bin/smtp-sink) whose mails are readable as JSON over HTTP,
#   - the scripted fake AI upstream (`casus fake-ai`) when the binary has it,
#   - `casus serve --seed` on a free loopback port.
# The command sees CASUS_URL, ANON_KEY, SERVICE_ROLE_KEY, SMTP_SINK_URL, DATABASE_URL
# (and FAKE_AI_URL when the fake AI runs). DB_AUTHENTICATOR, when set, names the server's
# login role (make test/core: `authenticator`, as in every Supabase project; the role is
# cluster-wide, so it is never dropped here). Exits with the command's status.
#   scripts/with-server.sh npm --prefix frontend run test:contract
# WITH_SERVER_CLUSTER=N (2 or more) starts N instances on the one database behind HAProxy
# (scripts/haproxy-config.sh), and CASUS_URL is the proxy's; CASUS_PIDS lists the
# instances' process ids (for fault tests: kill -9 one of them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
./scripts/ensure-postgres.sh

# (Re)build a binary when it is missing or any input is newer; build to a temporary name
# and rename, so servers already running from it (other runs) are not disturbed.
build() {
  local out=$1 pkg=$2
  if [ -x "$out" ] && [ -z "$(find server sql codes go.mod go.sum -newer "$out" -type f -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  mkdir -p bin
  go build -o "$out.tmp.$$" "$pkg"
  mv -f "$out.tmp.$$" "$out"
}
build bin/casus ./server/cmd/casus
build bin/smtp-sink ./server/cmd/smtp-sink

admin=${CASUS_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
db="casus_e2e_$(date +%s)_${RANDOM}${RANDOM}"
dburl="${admin%%\?*}"
dburl="${dburl%/*}/$db?sslmode=disable"

state=$(mktemp -d "${TMPDIR:-/tmp}/casus-with-server.XXXXXX")
pids=()
db_created=
cleanup() {
  local status=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [ -n "$db_created" ]; then
    # The realtime server's replication slot first: a database with a slot cannot be
    # dropped (its walsender ends with the server; retried while it exits).
    for _ in $(seq 1 50); do
      psql "$admin" -qAt -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = '$db' and not active" >/dev/null 2>&1 || true
      psql "$admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 && break
      psql "$admin" -qAt -c "select pg_terminate_backend(active_pid) from pg_replication_slots where database = '$db' and active_pid is not null" >/dev/null 2>&1 || true
      sleep 0.1
    done
    # The server's login role for this database (db.LoginRole) is cluster-wide.
    psql "$admin" -qc "drop role if exists ${db}_authenticator" >/dev/null 2>&1 || true
  fi
  rm -rf "$state"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

psql "$admin" -qc "create database $db" >/dev/null
db_created=1

# WITH_SERVER_SCHEMAS=a,b: extra schemas to expose after public (DB_SCHEMAS), created empty
# before the server starts (it checks them at start); a fixture then fills them with psql.
# They are granted as a Supabase project grants an exposed schema: to the API roles only,
# not to the server's login role (created here when the cluster has never seen them).
schemas=public
if [ -n "${WITH_SERVER_SCHEMAS:-}" ]; then
  psql "$dburl" -q >/dev/null <<'SQL'
do $$ declare r text; begin
  foreach r in array array['anon', 'authenticated', 'service_role'] loop
    begin
      if not exists (select 1 from pg_roles where rolname = r) then execute format('create role %I nologin noinherit', r); end if;
    exception when duplicate_object or unique_violation then null;
    end;
  end loop;
end $$;
SQL
  for s in ${WITH_SERVER_SCHEMAS//,/ }; do
    [[ $s =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "with-server: bad schema name $s" >&2; exit 2; }
    psql "$dburl" -qc "create schema $s; grant usage on schema $s to anon, authenticated, service_role" >/dev/null
    schemas="$schemas,$s"
  done
fi

# A free loopback port, below the kernel's ephemeral range: a port inside it can be taken
# between this check and the server's bind by any outgoing connection (the server's own to
# PostgreSQL, say), which fails the bind with "address already in use".
read -r eph_low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph_low=32768
[ "$eph_low" -gt 12000 ] || eph_low=32768
taken=" "
port() {
  local p
  while :; do
    p=$((10000 + (RANDOM * 32768 + RANDOM) % (eph_low - 10000)))
    case "$taken" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken="$taken$p "
      echo "$p"
      return
    fi
  done
}
smtp_port=$(port); taken="$taken$smtp_port "
sink_port=$(port); taken="$taken$sink_port "
app_port=$(port); taken="$taken$app_port "
ai_port=$(port); taken="$taken$ai_port "
cluster=${WITH_SERVER_CLUSTER:-1}
[[ $cluster =~ ^[1-9]$ ]] || { echo "with-server: WITH_SERVER_CLUSTER must be 1..9" >&2; exit 2; }
instance_ports=("$app_port")
if [ "$cluster" -gt 1 ]; then
  command -v haproxy >/dev/null || { echo "with-server: WITH_SERVER_CLUSTER needs haproxy (scripts/install-test-deps.sh)" >&2; exit 2; }
  instance_ports=()
  for _ in $(seq 1 "$cluster"); do
    p=$(port); taken="$taken$p "
    instance_ports+=("$p")
  done
fi

# wait_http URL PID [HEADER]: until URL answers 2xx, or fail if PID died.
wait_http() {
  local url=$1 pid=$2 hdr=${3:-x-none: 1}
  for _ in $(seq 1 1200); do
    if curl -fsS -o /dev/null -H "$hdr" "$url" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

./bin/smtp-sink -smtp "127.0.0.1:$smtp_port" -http "127.0.0.1:$sink_port" >"$state/sink.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$sink_port/messages" "${pids[-1]}" || { cat "$state/sink.log" >&2; exit 1; }

ai_env=()
./bin/casus fake-ai --addr "127.0.0.1:$ai_port" >"$state/fake-ai.log" 2>&1 &
ai_pid=$!
if wait_http "http://127.0.0.1:$ai_port/_requests" "$ai_pid"; then
  pids+=("$ai_pid")
  export FAKE_AI_URL="http://127.0.0.1:$ai_port"
  ai_env=(AI_PROVIDER=anthropic ANTHROPIC_API_KEY=fake-key "ANTHROPIC_BASE_URL=$FAKE_AI_URL" AI_MODEL=claude-test)
else
  wait "$ai_pid" 2>/dev/null || true
fi

export JWT_SECRET="with-server-$(date +%s)-$RANDOM$RANDOM-0123456789abcdef"
keys=$(CASUS_STATE_DIR="$state" ./bin/casus keys)
ANON_KEY=$(sed -n 's/^ANON_KEY=//p' <<<"$keys")
SERVICE_ROLE_KEY=$(sed -n 's/^SERVICE_ROLE_KEY=//p' <<<"$keys")
export ANON_KEY SERVICE_ROLE_KEY

# Rate limits stay on but high: contract and browser tests sign in often from one IP.
# The auth features GoTrue ships off (anonymous sign-ins, reauthentication for a password
# change, unlinking identities) are on, so the contract tests reach them; the Go tests
# cover them off. In a cluster every instance has the same settings and secret, and
# believes the proxy's X-Forwarded-For.
trusted=
[ "$cluster" -gt 1 ] && trusted=127.0.0.1/32
start_instance() { # PORT LOG [--seed]
  local p=$1 log=$2
  shift 2
  env DATABASE_URL="$dburl" DB_SCHEMAS="$schemas" CASUS_ADDR="127.0.0.1:$p" SITE_URL="http://127.0.0.1:$app_port" \
    SMTP_HOST=127.0.0.1 SMTP_PORT="$smtp_port" SMTP_USER= SMTP_PASS= SMTP_SENDER="Casus <no-reply@casus.test>" \
    CASUS_STATE_DIR="$state" FRONTEND_DIR="$root/frontend/dist" CODES_DIR="$root/codes" MAILER_AUTOCONFIRM=false \
    RATE_LIMIT_SIGNIN="${RATE_LIMIT_SIGNIN:-1000}" RATE_LIMIT_SIGNUP="${RATE_LIMIT_SIGNUP:-1000}" \
    RATE_LIMIT_EMAIL_SENT="${RATE_LIMIT_EMAIL_SENT:-1000}" RATE_LIMIT_VERIFY="${RATE_LIMIT_VERIFY:-1000}" \
    RATE_LIMIT_ANONYMOUS_USERS="${RATE_LIMIT_ANONYMOUS_USERS:-1000}" RATE_LIMIT_OTP="${RATE_LIMIT_OTP:-1000}" \
    FEEDBACK_RATE_LIMIT_PER_IP="${FEEDBACK_RATE_LIMIT_PER_IP:-1000}" FEEDBACK_RATE_LIMIT_TOTAL="${FEEDBACK_RATE_LIMIT_TOTAL:-100000}" \
    ANONYMOUS_USERS_ENABLED="${ANONYMOUS_USERS_ENABLED:-true}" \
    SECURE_PASSWORD_CHANGE="${SECURE_PASSWORD_CHANGE:-true}" MANUAL_LINKING_ENABLED="${MANUAL_LINKING_ENABLED:-true}" \
    TRUSTED_PROXIES="$trusted" "${ai_env[@]}" ./bin/casus serve "$@" >"$log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  if ! wait_http "http://127.0.0.1:$p/auth/v1/health" "$server_pid" "apikey: $ANON_KEY"; then
    echo "with-server: the server did not come up; its log:" >&2
    tail -80 "$log" >&2
    exit 1
  fi
}
# The first instance migrates and seeds; the others start on the migrated database.
logs=()
instance_pids=()
for i in "${!instance_ports[@]}"; do
  seed=()
  [ "$i" -eq 0 ] && seed=(--seed)
  log="$state/server.log"
  [ "$cluster" -gt 1 ] && log="$state/server$((i + 1)).log"
  logs+=("$log")
  start_instance "${instance_ports[$i]}" "$log" "${seed[@]}"
  instance_pids+=("$server_pid")
done
if [ "$cluster" -gt 1 ]; then
  ./scripts/haproxy-config.sh "$app_port" "$ANON_KEY" "${instance_ports[@]}" >"$state/haproxy.cfg"
  haproxy -db -f "$state/haproxy.cfg" >"$state/haproxy.log" 2>&1 &
  pids+=($!)
  if ! wait_http "http://127.0.0.1:$app_port/auth/v1/health" "${pids[-1]}" "apikey: $ANON_KEY"; then
    echo "with-server: haproxy did not come up; its log:" >&2
    cat "$state/haproxy.log" >&2
    exit 1
  fi
fi
export CASUS_PIDS="${instance_pids[*]}"

export CASUS_URL="http://127.0.0.1:$app_port" SMTP_SINK_URL="http://127.0.0.1:$sink_port" DATABASE_URL="$dburl" DB_SCHEMAS="$schemas"

# The command's output is also kept, so that a failure ends with its own summary: CI shows
# only the last lines, and the servers' logs printed after a failure would hide it.
set +e
"$@" 2>&1 | tee "$state/command.log"
status=${PIPESTATUS[0]}
set -e
if [ $status -ne 0 ]; then
  for log in "${logs[@]}"; do
    echo "--- $(basename "$log") (last 60 lines)" >&2
    tail -60 "$log" >&2
  done
  echo "--- what failed (from the command's output above)" >&2
  sed 's/\x1b\[[0-9;]*m//g' "$state/command.log" |
    grep -E '^ *(FAIL|×|✗|❯ .*:[0-9]+:[0-9]+|(Assertion|Type|Timeout)?Error\b|Test Files|Tests )' | tail -30 >&2 || true
fi
exit $status
