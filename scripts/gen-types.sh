#!/usr/bin/env bash
# Regenerates frontend/src/types/database.ts from the migrations and frontend/src/types/rules.ts
# from the server's rules (--check: fail if either is stale).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-postgres.sh
go run ./server/cmd/genrules "$@"
exec go run ./server/cmd/gentypes "$@"
