package aigw_test

import (
	"casus/server/internal/aigw"

	"context"
	"testing"
)

// The authorship check's verdict is the database's (ai_check_cleared): what the gateway
// lets through to grading and what the web app reads (submissions_with_details.ai_cleared)
// are the same function, over the spec's pass rule and a moderator's release.
func TestCheckVerdictIsTheDatabasesRule(t *testing.T) {
	e := start(t, nil)
	ctx := context.Background()
	sub := e.submission(userA, "Un text oarecare al studentului.")
	cases := []struct {
		decision    *string
		probability *float64
		cleared     bool
	}{
		{ptr("PASSED"), ptr(90.0), true},
		{ptr("passed"), nil, true},
		{ptr("FAILED"), ptr(10.0), false},
		{ptr("RELEASED"), ptr(95.0), true},
		{nil, ptr(30.0), true},
		{nil, ptr(30.01), false},
		{ptr(""), ptr(12.0), true},
		{nil, nil, false},
	}
	for _, c := range cases {
		if _, err := e.srv.Deps.Owner.Exec(ctx, `update case_submissions set ai_decision = $2, ai_probability = $3, ai_checked_at = now() where id = $1`, sub, c.decision, c.probability); err != nil {
			t.Fatal(err)
		}
		var gateway, viewCleared bool
		if err := e.srv.Deps.Owner.QueryRow(ctx, `select `+aigw.PassedSQL+` from case_submissions where id = $1`, sub).Scan(&gateway); err != nil {
			t.Fatal(err)
		}
		if err := e.srv.Deps.Owner.QueryRow(ctx, `select ai_cleared from submissions_with_details where id = $1`, sub).Scan(&viewCleared); err != nil {
			t.Fatal(err)
		}
		if gateway != c.cleared || viewCleared != c.cleared {
			t.Errorf("decision %v probability %v: gateway %v, view %v, want %v", deref(c.decision), deref(c.probability), gateway, viewCleared, c.cleared)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
