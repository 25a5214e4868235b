// Package casussql exposes the SQL migrations and the seed content to the Go binary
// (go:embed cannot reach "..", so the embedding lives next to the files).
package casussql

import "embed"

// Migrations holds sql/migrations/*.sql, applied in order by tern.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Seed holds sql/seed: the category catalogues, the university list and the curriculum cases.
//
//go:embed seed
var Seed embed.FS
