#!/usr/bin/env bash
# Prints an HAProxy configuration that spreads HTTP and websocket traffic over Casus
# instances on loopback, as a load balancer in front of N instances on one PostgreSQL:
#   scripts/haproxy-config.sh FRONT_PORT ANON_KEY BACKEND_PORT...
# Instances are checked with GET /auth/v1/health (with the anon key) every second and
# leave the rotation after two failures; a request whose connection to an instance fails
# is sent to another one (redispatch), so only requests already in flight to an instance
# that dies fail. Websockets stay on the instance that accepted them (timeout tunnel)
# until it or the client closes them; the client then reconnects through the proxy.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 FRONT_PORT ANON_KEY BACKEND_PORT..." >&2; exit 2; }
front=$1 key=$2
shift 2
cat <<CFG
global
  # Two file descriptors per proxied connection; keep within a default ulimit -n.
  maxconn 8000

defaults
  mode http
  option http-keep-alive
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 30s
  timeout http-keep-alive 30s
  timeout tunnel 1h
  timeout client-fin 5s
  retries 2
  option redispatch 1
  retry-on conn-failure empty-response
  # The instances see the client's address in X-Forwarded-For (TRUSTED_PROXIES=127.0.0.1/32).
  option forwardfor

frontend casus
  bind 127.0.0.1:$front
  default_backend instances

backend instances
  balance leastconn
  option httpchk
  http-check send meth GET uri /auth/v1/health hdr apikey $key
  http-check expect status 200
  default-server check inter 1s fall 2 rise 1 observe layer4 error-limit 1 on-error mark-down
CFG
i=1
for p in "$@"; do
  echo "  server casus$i 127.0.0.1:$p"
  i=$((i + 1))
done
