// Package casussql exposes the SQL migrations and the seed content to the Go binary
// (go:embed cannot reach "..", so the embedding lives next to the files).
package casussql

import "embed"

// Platform holds sql/platform/*.sql: the Supabase-compatible core (roles, the auth schema,
// realtime, Supabase's default privileges), applied by tern whatever app is served.
//
//go:embed platform/*.sql
var Platform embed.FS

// App holds sql/app/*.sql: the study app's schema, applied after the platform unless
// CASUS_APP=none.
//
//go:embed app/*.sql
var App embed.FS

// Seed holds sql/seed: the category catalogues, the university list and the curriculum cases.
//
//go:embed seed
var Seed embed.FS
