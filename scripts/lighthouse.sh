#!/usr/bin/env bash
# Builds the web app, starts a throwaway stack (scripts/with-server.sh) and prints:
#   - Lighthouse scores (desktop and mobile presets, Debian /usr/bin/chromium) of /login, /try
#     and /dashboard signed in: targets performance 100, accessibility 100, best practices ≥ 95;
#   - the initial JavaScript of /dashboard, gzip (budget 140 kB), per script;
#   - axe-core on every route, light and dark, desktop and phone (e2e/design.test.ts, which
#     also retakes the screenshots in frontend/e2e/screenshots/).
# Exits non-zero when a target is missed or axe finds a violation.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd frontend && npx vite build --logLevel error)
./scripts/with-server.sh bash -c '
  status=0
  (cd frontend && node scripts/lighthouse.mjs) || status=1
  log=$(mktemp)
  (cd frontend && npx vitest run --config vitest.e2e.config.ts e2e/design.test.ts) >"$log" 2>&1 || status=1
  echo "AXE (axe-core $(node -p "require(\"./frontend/node_modules/axe-core/package.json\").version"), every route, light and dark, desktop and phone)"
  sed "s/\x1b\[[0-9;]*m//g" "$log" | grep -E "^AXE |Tests |FAIL|AssertionError" || true
  rm -f "$log"
  exit $status
'
