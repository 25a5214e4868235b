package postgrest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// nestedSelect is select=name,law_subcategories(name,law_categories(…)) depth levels
// deep, read from the table that the outermost embed starts from.
func nestedSelect(depth int) (table, sel string) {
	sel = "name"
	for i := 1; i <= depth; i++ {
		if i%2 == 1 {
			sel = "name,law_subcategories(" + sel + ")"
		} else {
			sel = "name,law_categories(" + sel + ")"
		}
	}
	if depth%2 == 1 {
		return "law_categories", sel
	}
	return "law_subcategories", sel
}

// The statement timeout bounds the whole of a data-API statement, its parse and plan
// included: it is the API connection's own setting, in force before the first message
// of a request (a statement used to be prepared ahead of the settings statement that set
// the timeout). A deeply nested read (past the request limits, built here directly)
// takes PostgreSQL seconds to plan and is cancelled on time.
func TestStatementTimeoutCoversParseAndPlan(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	const timeout = 300 * time.Millisecond
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2, APIConns: 1, StatementTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	sc, err := loadSchema(ctx, pools.Owner, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	table, sel := nestedSelect(24)
	items, err := parseSelect(sel)
	if err != nil {
		t.Fatal(err)
	}
	q := &Query{Select: items, Filters: map[string][]Filter{}, Logic: map[string][]*Logic{}, Order: map[string][]OrderTerm{}, Limit: map[string]int{"": 1}, Offset: map[string]int{}}
	plan, err := Plan(ApiRequest{Method: "GET", Target: Target{Kind: TargetRelation, Schema: "public", Name: table}, Query: q}, sc, PlanConfig{})
	if err != nil {
		t.Fatal(err)
	}
	stmt, args := Statement(plan)

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
	start := time.Now()
	err = db.SendAsRole(ctx, conn.Conn(), &authn.Claims{Role: authn.RoleAnon}, db.ReadOnly, db.RequestInfo{Method: "GET", Path: "/rest/v1/" + table}, false, func(b *pgx.Batch) {
		b.Queue(stmt, args...).QueryRow(func(r pgx.Row) error {
			var body string
			var rows int
			var total *int64
			return r.Scan(&body, &rows, &total)
		})
	})
	elapsed := time.Since(start)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "57014" {
		t.Fatalf("want a statement timeout (57014), got %v after %v", err, elapsed)
	}
	// Generous for a busy 2-core machine (up to 3.4 s seen at load 14); unbounded parsing
	// took 5–30 s here.
	if elapsed > 20*timeout {
		t.Fatalf("cancelled after %v with a %v statement timeout", elapsed, timeout)
	}
	t.Logf("cancelled after %v (statement_timeout %v)", elapsed, timeout)
}
