package dbsqlc

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/testutil/pgtest"
)

// The user's MFA factors ride on every sign-in, refresh and GET /user. They must be read
// by the statement itself, planned once with it, not through a function PostgreSQL plans
// again at every call (its body has a FROM and an aggregate, so it is never inlined): in
// the plan, the factors' table appears; behind a function call it does not.
func TestFactorsReadIsPlannedIntoTheStatement(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewPlatform(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	for name, sql := range map[string]string{
		"FactorsJSON":                factorsJSON,
		"SessionStart":               sessionStart,
		"SessionUserIdentitiesBatch": sessionUserIdentitiesBatch,
	} {
		plan := genericPlan(t, ctx, conn, sql)
		if !strings.Contains(plan, `"Relation Name": "mfa_factors"`) {
			t.Errorf("%s: the plan does not read mfa_factors itself:\n%s", name, plan)
		}
	}
}

// genericPlan is the plan PostgreSQL keeps for sql as a prepared statement, parameters
// left as parameters (EXPLAIN with values would fold them in).
func genericPlan(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string) string {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "set local plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	sd, err := tx.Prepare(ctx, "plan_under_test", sql)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Deallocate(ctx, "plan_under_test") }()
	nulls := strings.TrimSuffix(strings.Repeat("null,", len(sd.ParamOIDs)), ",")
	var plan string
	if err := tx.QueryRow(ctx, "explain (format json) execute plan_under_test("+nulls+")").Scan(&plan); err != nil {
		t.Fatal(err)
	}
	return plan
}
