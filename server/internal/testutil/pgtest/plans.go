package pgtest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PlanCounter is a connection on which PostgreSQL reports each run of its planner
// (log_planner_stats, sent to the client): a statement's custom or generic plan, a
// PL/pgSQL statement's, a SQL function body's that was not inlined. A test can so tell a
// statement planned once per connection from one planned on every call.
type PlanCounter struct {
	Conn  *pgx.Conn
	plans atomic.Int64
}

// NewPlanCounter connects to url (as its user, who must be a superuser: the setting is
// reserved to them), closed when the test ends.
func NewPlanCounter(t testing.TB, url string) *PlanCounter {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	p := &PlanCounter{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Message == "PLANNER STATISTICS" {
			p.plans.Add(1)
		}
	}
	if p.Conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Conn.Close(context.Background()) })
	if _, err := p.Conn.Exec(ctx, "set client_min_messages = log; set log_planner_stats = on"); err != nil {
		t.Fatal(err)
	}
	return p
}

// Plans is the number of plans made on the connection so far.
func (p *PlanCounter) Plans() int64 { return p.plans.Load() }
