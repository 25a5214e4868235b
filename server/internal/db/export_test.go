package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// MigrateSetsTo migrates a database to the given version of each set, for tests that
// need the schema as an older binary left it.
func MigrateSetsTo(ctx context.Context, databaseURL string, platform, app int32) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create schema if not exists casus_meta"); err != nil {
		return err
	}
	if _, err := applySet(ctx, conn, platformSet, platform); err != nil {
		return err
	}
	_, err = applySet(ctx, conn, appSet, app)
	return err
}
