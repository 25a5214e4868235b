package postgrest

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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

// An anonymous read at the request limits' deepest nesting (eight embeds) is estimated
// far past jit_above_cost; with JIT on, PostgreSQL compiled it for 0.65 s to run it in
// 2 ms. The API connections run without JIT, so the plan has no JIT section.
func TestDeepReadsAreNotJITCompiled(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.New(t)
	pools, err := db.OpenPools(ctx, dbURL, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2, APIConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	sc, err := loadSchema(ctx, pools.Owner, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	table, sel := nestedSelect(maxEmbedDepth)
	if err := checkLimits("select="+url.QueryEscape(sel), url.Values{"select": {sel}}); err != nil {
		t.Fatalf("the read is not within the limits: %v", err)
	}
	items, err := parseSelect(sel)
	if err != nil {
		t.Fatal(err)
	}
	q := &Query{Select: items, Filters: map[string][]Filter{}, Logic: map[string][]*Logic{}, Order: map[string][]OrderTerm{}, Limit: map[string]int{}, Offset: map[string]int{}}
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
	var lines []string
	err = db.SendAsRole(ctx, conn.Conn(), &authn.Claims{Role: authn.RoleAnon}, db.ReadOnly, db.RequestInfo{}, false, func(b *pgx.Batch) {
		b.Queue("explain (analyze, summary) "+stmt, args...).Query(func(r pgx.Rows) error {
			for r.Next() {
				var l string
				if err := r.Scan(&l); err != nil {
					return err
				}
				lines = append(lines, l)
			}
			return r.Err()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if plan := strings.Join(lines, "\n"); strings.Contains(plan, "JIT:") {
		t.Fatalf("the read was JIT-compiled:\n%s", plan[strings.Index(plan, "JIT:"):])
	}
}
