package db

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	casussql "casus/sql"
)

// VersionTable keeps tern's bookkeeping out of the exposed public schema.
const VersionTable = "casus_meta.schema_version"

// Migrate applies every pending migration from sql/migrations. Re-running it is a no-op.
// A session-level advisory lock serialises concurrent migrators of one database.
func Migrate(ctx context.Context, databaseURL string) (int32, error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "select pg_advisory_lock(7266580)"); err != nil {
		return 0, err
	}
	defer conn.Exec(context.Background(), "select pg_advisory_unlock(7266580)") //nolint:errcheck
	if _, err := conn.Exec(ctx, "create schema if not exists casus_meta"); err != nil {
		return 0, err
	}
	m, err := migrate.NewMigrator(ctx, conn, VersionTable)
	if err != nil {
		return 0, err
	}
	sub, err := fs.Sub(casussql.Migrations, "migrations")
	if err != nil {
		return 0, err
	}
	if err := m.LoadMigrations(sub); err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return 0, err
	}
	v, err := m.GetCurrentVersion(ctx)
	if err != nil {
		return 0, err
	}
	// Tell schema caches (ours and any PostgREST) that the schema may have changed.
	if _, err := conn.Exec(ctx, "notify pgrst, 'reload schema'"); err != nil {
		return 0, err
	}
	return v, nil
}
