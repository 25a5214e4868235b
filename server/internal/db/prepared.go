package db

import (
	"container/list"
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Bounds on the generated statements an API connection keeps prepared. Parsing and
// planning a statement again on every request tripled the database's CPU per read, so
// short statements (the app's requests) stay prepared; but one prepared statement per
// distinct text, unbounded, let forty distinct nested reads grow a backend from 37 MB to
// 578 MB. So: only statements of at most maxPreparedSQL bytes, at most maxPrepared per
// connection, the least recently used deallocated first. Longer ones run unnamed.
const (
	maxPreparedSQL = 1024
	maxPrepared    = 64
)

const preparedKey = "casus.prepared"

// preparedSet is one connection's kept statements, most recently used first.
type preparedSet struct {
	order *list.List               // of *preparedEntry
	bySQL map[string]*list.Element // SQL → its element
}

// preparedEntry is a statement the set knows: prepared, or known to be unpreparable by
// the login role (it names a schema only the API roles may use, as a Supabase project's
// second schema): that one runs unnamed, parsed after the role switch like any
// statement that is not prepared.
type preparedEntry struct {
	sql      string
	prepared bool
}

// prepareBounded makes sure a short statement is prepared on conn (pgx then runs it by
// name, Bind only), within the connection's bounds; longer statements are left alone.
// Preparing happens as the login role, before the request's role switch; when that role
// may not use a schema the statement names (42501), the statement is remembered as
// unpreparable and left to run unnamed, as the request's role.
func prepareBounded(ctx context.Context, conn *pgx.Conn, sql string) error {
	if len(sql) > maxPreparedSQL {
		return nil
	}
	data := conn.PgConn().CustomData()
	set, _ := data[preparedKey].(*preparedSet)
	if set == nil {
		set = &preparedSet{order: list.New(), bySQL: map[string]*list.Element{}}
		data[preparedKey] = set
	}
	if el, ok := set.bySQL[sql]; ok {
		set.order.MoveToFront(el)
		return nil
	}
	if set.order.Len() >= maxPrepared {
		oldest := set.order.Back()
		old := oldest.Value.(*preparedEntry)
		if old.prepared {
			if err := conn.Deallocate(ctx, old.sql); err != nil {
				return err
			}
		}
		set.order.Remove(oldest)
		delete(set.bySQL, old.sql)
	}
	e := &preparedEntry{sql: sql, prepared: true}
	if _, err := conn.Prepare(ctx, sql, sql); err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
			return err
		}
		e.prepared = false
	}
	set.bySQL[sql] = set.order.PushFront(e)
	return nil
}
