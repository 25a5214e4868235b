// Package casussql exposes the SQL migrations to the Go binary (go:embed cannot reach "..").
package casussql

import "embed"

// Migrations holds sql/migrations/*.sql, applied in order by tern.
//
//go:embed migrations/*.sql
var Migrations embed.FS
