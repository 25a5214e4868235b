#!/usr/bin/env bash
# Builds the web app and runs the browser test that measures the study screens, against a
# throwaway stack (scripts/with-server.sh). Prints the MEASURE lines and the JSON file:
#   - article_jump_ms_*: click on a Civil Code article badge → article visible (code loaded),
#   - dashboard_initial_js_gzip_bytes: gzip size of the scripts /dashboard loads before any input,
#   - dashboard_first_case_list_ms: navigation start → case tree rendered, warm server.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd frontend && npm run build --silent >/dev/null)
rm -f frontend/test-output/measurements.json
./scripts/with-server.sh bash -c 'cd frontend && npx vitest run --config vitest.e2e.config.ts e2e/study.test.ts' 2>&1 |
  sed 's/\x1b\[[0-9;]*m//g' | grep -o 'MEASURE .*' || true
cat frontend/test-output/measurements.json
