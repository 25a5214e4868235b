package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// DropDatabase drops a database and first its replication slots (the realtime server's,
// see realtime/wal.go): PostgreSQL refuses to drop a database a slot belongs to. A slot
// still in use is freed by ending its walsender; the drop is retried while that exits.
func DropDatabase(ctx context.Context, c *pgx.Conn, name string) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		_, _ = c.Exec(ctx, `select pg_terminate_backend(active_pid) from pg_replication_slots
			where database = $1 and active_pid is not null`, name)
		_, _ = c.Exec(ctx, `select pg_drop_replication_slot(slot_name) from pg_replication_slots
			where database = $1 and not active`, name)
		if _, err = c.Exec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}
