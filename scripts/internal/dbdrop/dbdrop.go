// Package dbdrop drops the scripts' private databases. It mirrors db.DropDatabase, which
// scripts cannot import (server/internal).
package dbdrop

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Drop drops a database after its replication slots (the realtime server's): PostgreSQL
// refuses to drop a database a slot belongs to.
func Drop(ctx context.Context, c *pgx.Conn, name string) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		_, _ = c.Exec(ctx, `select pg_terminate_backend(active_pid) from pg_replication_slots
			where database = $1 and active_pid is not null`, name)
		_, _ = c.Exec(ctx, `select pg_drop_replication_slot(slot_name) from pg_replication_slots
			where database = $1 and not active`, name)
		if _, err = c.Exec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond) // the slot's walsender is still exiting: retry
	}
	return err
}
