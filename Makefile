# Casus — the two commands that matter: `make run` and `make test`. `make help` lists all.
SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
BIN := bin/casus
FRONTEND := frontend
NPM_CI = cd $(FRONTEND) && (test -d node_modules -a node_modules/.package-lock.json -nt package-lock.json || npm ci --no-audit --no-fund --loglevel=error)

.PHONY: help run build build/server build/frontend seed migrate generate generate/sqlc generate/types \
	verify/generated lint test test/setup test/go test/fuzz test/frontend test/contract test/contract/cluster test/core test/e2e bench load load/short db/reset

help: ## list the targets
	@grep -E '^[a-zA-Z/_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 22

run: build ## build, bring up PostgreSQL, migrate, seed and serve on http://localhost:8080
	@./scripts/ensure-postgres.sh
	DEV_MAIL_OUTBOX=$${DEV_MAIL_OUTBOX:-true} ./$(BIN) serve --seed

build: build/frontend build/server ## build the web app and the server binary

build/server:
	$(GO) build -o $(BIN) ./server/cmd/casus

build/frontend:
	@if [ -f $(FRONTEND)/package.json ]; then $(NPM_CI) && npm run build --silent; fi

migrate: build/server ## apply pending migrations
	./$(BIN) migrate

seed: build/server ## load codes, catalogues and the curriculum (idempotent)
	./$(BIN) seed

generate: generate/sqlc generate/types ## regenerate sqlc code and the frontend's database types

generate/sqlc:
	cd sql && $(GO) tool sqlc generate

generate/types: build/server
	@if [ -x scripts/gen-types.sh ]; then ./scripts/gen-types.sh; fi

verify/generated: ## fail when generated code is stale
	cd sql && $(GO) tool sqlc diff
	@if [ -x scripts/gen-types.sh ]; then ./scripts/gen-types.sh --check; fi

lint: ## gofmt, go vet, tsc --noEmit, ESLint
	@test -z "$$(gofmt -l server sql)" || (echo "gofmt needed:"; gofmt -l server sql; exit 1)
	$(GO) vet ./...
	@if [ -f $(FRONTEND)/package.json ]; then $(NPM_CI) && npx tsc --noEmit -p . && npx eslint . --max-warnings=0; fi

test: test/setup lint verify/generated test/go test/fuzz test/frontend test/contract test/core test/e2e ## run every test

test/setup:
	@./scripts/install-test-deps.sh
	@if [ -f $(FRONTEND)/package.json ]; then $(NPM_CI); fi

test/go: ## Go tests against a real PostgreSQL
	$(GO) test -count=1 -timeout 30m ./...

test/fuzz: ## short fuzz runs of the parsers
	@if [ -x scripts/fuzz.sh ]; then ./scripts/fuzz.sh; fi

test/frontend: ## Vitest unit tests
	@if [ -f $(FRONTEND)/package.json ]; then cd $(FRONTEND) && npm run test:unit --silent; fi

# The contract suite exercises aggregates, off by default as in PostgREST.
test/contract: build/server ## supabase-js contract tests against a running server
	@if [ -f $(FRONTEND)/package.json ]; then DB_AGGREGATES_ENABLED=true ./scripts/with-server.sh bash -c 'cd $(FRONTEND) && npm run test:contract --silent'; fi

test/contract/cluster: build/server ## the contract tests through HAProxy in front of 3 instances on one database
	@if [ -f $(FRONTEND)/package.json ]; then DB_AGGREGATES_ENABLED=true ./scripts/cluster.sh -n 3 bash -c 'cd $(FRONTEND) && npm run test:contract --silent'; fi

# The core suite is a stock Supabase project: login role `authenticator` (whose pgrst.*
# settings the fixture sets), a second schema `personal` granted to the API roles only.
test/core: build/server ## supabase-js against the core alone (CASUS_APP=none) on a fixture schema
	@if [ -f $(FRONTEND)/package.json ]; then CASUS_APP=none DB_AUTHENTICATOR=authenticator WITH_SERVER_SCHEMAS=lib_extra,personal ./scripts/with-server.sh bash -c 'cd $(FRONTEND) && npm run test:core --silent'; fi

test/e2e: build ## Playwright + Debian chromium end-to-end tests
	@if [ -f $(FRONTEND)/package.json ]; then ./scripts/with-server.sh bash -c 'cd $(FRONTEND) && npm run test:e2e --silent'; fi

bench: build/server ## every benchmark, each figure as a ratio to its baseline
	./scripts/bench.sh

load: ## 200 simulated students for 3 minutes on a private stack, checked against the targets
	@./scripts/ensure-postgres.sh
	$(GO) run ./scripts/load

load/short: ## the load run with 20 students for 20 s
	@./scripts/ensure-postgres.sh
	$(GO) run ./scripts/load -students 20 -duration 20s

db/reset: build/server ## drop and recreate the development database
	@# Its realtime replication slot first (a database with a slot cannot be dropped); stop `make run` before.
	psql "$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = 'casus' and not active"
	psql "$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -c 'drop database if exists casus with (force)'
	./$(BIN) migrate
