#!/usr/bin/env bash
# Regenerates frontend/src/types/database.ts from the migrations (--check: fail if stale).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-postgres.sh
exec go run ./server/cmd/gentypes "$@"
