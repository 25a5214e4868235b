// Package deps is what the composition root hands every service: configuration, pools,
// keys and the logger. Services receive it and never import each other.
package deps

import (
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/authn"
	"casus/server/internal/config"
)

// Deps are the shared dependencies of the services.
type Deps struct {
	Config *config.Config
	// DatabaseURL is the owner connection string actually in use (it may point at a
	// private cluster rather than the configured DATABASE_URL).
	DatabaseURL string
	Owner       *pgxpool.Pool // database owner: auth schema, introspection, grading
	API         *pgxpool.Pool // authenticator: every data request switches role here
	Keys        *authn.Keys
	Log         *slog.Logger
}
