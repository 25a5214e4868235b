package db

import (
	"container/list"
	"context"

	"github.com/jackc/pgx/v5"
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
	order *list.List               // of string (the SQL)
	bySQL map[string]*list.Element // SQL → its element
}

// prepareBounded makes sure a short statement is prepared on conn (pgx then runs it by
// name, Bind only), within the connection's bounds; longer statements are left alone.
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
		old := oldest.Value.(string)
		if err := conn.Deallocate(ctx, old); err != nil {
			return err
		}
		set.order.Remove(oldest)
		delete(set.bySQL, old)
	}
	if _, err := conn.Prepare(ctx, sql, sql); err != nil {
		return err
	}
	set.bySQL[sql] = set.order.PushFront(sql)
	return nil
}
