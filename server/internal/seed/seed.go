// Package seed loads the study content (codes, catalogues, curriculum cases) idempotently.
package seed

import (
	"context"

	"casus/server/internal/deps"
)

// Run loads the seed data. Placeholder until the content issue lands.
func Run(ctx context.Context, d deps.Deps) error { return nil }
