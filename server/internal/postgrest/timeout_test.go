package postgrest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// The statement timeout bounds the whole of a data-API statement, its parse and plan
// included: it is the API connection's own setting, in force before the first message
// of a request (a statement used to be prepared ahead of the settings statement that set
// the timeout, and a deeply nested read then parsed for seconds with no limit). The
// nested reads that once took PostgreSQL seconds to plan now plan in milliseconds (and
// spent their time in JIT compilation instead, which a server without JIT lacks), so
// the slow plan here is made on purpose: the planner folds an immutable function of
// constants, and this one sleeps. The statement must be cancelled by the timeout while
// it is planned, not by the caller and not after the sleep.
func TestStatementTimeoutCoversParseAndPlan(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	const timeout = 300 * time.Millisecond
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2, APIConns: 1, StatementTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	if _, err := pools.Owner.Exec(ctx, `create function public.slow_to_plan() returns int language plpgsql immutable as $$
		begin perform pg_sleep(30); return 1; end $$;
		grant execute on function public.slow_to_plan() to anon`); err != nil {
		t.Fatal(err)
	}

	conn, err := pools.API.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// The connection's own setting: in force before any statement of a request arrives.
	var setting string
	if err := conn.QueryRow(ctx, "show statement_timeout").Scan(&setting); err != nil || setting != "300ms" {
		t.Fatalf("API connection's statement_timeout = %q (%v), want 300ms", setting, err)
	}
	// A caller that gave up would also cancel (57014, "due to user request"): give it far
	// longer than the timeout, and less than the sleep.
	callCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	start := time.Now()
	err = db.SendAsRole(callCtx, conn.Conn(), &authn.Claims{Role: authn.RoleAnon}, db.ReadOnly, db.RequestInfo{Method: "GET", Path: "/rest/v1/rpc/slow_to_plan"}, false, func(b *pgx.Batch) {
		b.Queue("select public.slow_to_plan()").QueryRow(func(r pgx.Row) error {
			var n int
			return r.Scan(&n)
		})
	})
	elapsed := time.Since(start)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "57014" || !strings.Contains(pg.Message, "statement timeout") {
		t.Fatalf("want a statement timeout (57014), got %v after %v", err, elapsed)
	}
	t.Logf("cancelled after %v (statement_timeout %v)", elapsed, timeout)
}
