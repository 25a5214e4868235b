package domaindb

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/testutil/pgtest"
)

// The authorship rules are plain expressions in the statements that use them: each call
// of ai_check_cleared used to plan its body, and ai_check_passed's, again (SQL functions
// with their own search_path are never inlined). Their answers are the spec's (§5).
func TestAuthorshipRulesAreInlined(t *testing.T) {
	f := newFixture(t)
	p := pgtest.NewPlanCounter(t, f.pool.Config().ConnString())
	// The calling statement is planned once; what remains is the functions' own planning.
	if _, err := p.Conn.Exec(f.ctx, "set plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	const q = "select public.ai_check_passed($1::text, $2::numeric), public.ai_check_cleared($1::text, $2::numeric)"
	cases := []struct {
		decision    *string
		probability *float64
		passed      bool
		cleared     bool
	}{
		{ptr("PASSED"), ptr(90.0), true, true},
		{ptr("passed"), nil, true, true},
		{ptr("BLOCKED"), ptr(10.0), false, false},
		{ptr("RELEASED"), ptr(95.0), false, true},
		{ptr(""), ptr(30.0), true, true},
		{nil, ptr(30.0), true, true},
		{nil, ptr(30.5), false, false},
		{nil, nil, false, false},
	}
	before := p.Plans()
	for _, c := range cases {
		var passed, cleared bool
		if err := p.Conn.QueryRow(f.ctx, q, c.decision, c.probability).Scan(&passed, &cleared); err != nil {
			t.Fatal(err)
		}
		if passed != c.passed || cleared != c.cleared {
			t.Errorf("decision %v probability %v: passed %v cleared %v, want %v %v", deref(c.decision), deref(c.probability), passed, cleared, c.passed, c.cleared)
		}
	}
	if n := p.Plans() - before; n > 1 {
		t.Errorf("%d plans for %d calls: the rules' bodies are planned per call, not inlined", n, len(cases))
	}
}

// case_submissions_freeze_appealed guards the text and the difficulty of an appealed
// submission; the gateway's status, check and grade updates do not call it any more (its
// condition was planned on each of them). A student's edit of an appealed text is still
// refused (TestAppeal… in appeal_test.go).
func TestFreezeTriggerRunsOnlyForEdits(t *testing.T) {
	f := newFixture(t)
	// The owner's connection (a superuser's in tests: track_functions is theirs to set).
	conn, err := pgx.Connect(f.ctx, f.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(f.ctx)
	calls := func(sql string) int {
		t.Helper()
		tx, err := conn.Begin(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(f.ctx)
		if _, err := tx.Exec(f.ctx, "set local track_functions = 'pl'"); err != nil {
			t.Fatal(err)
		}
		// Counts not yet sent to the statistics collector stay in this view across
		// transactions: the difference is this statement's.
		count := func() int {
			var n int
			if err := tx.QueryRow(f.ctx, `select coalesce(sum(calls), 0)::int from pg_stat_xact_user_functions where funcname = 'case_submissions_freeze_appealed'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		if _, err := tx.Exec(f.ctx, sql, f.subA); err != nil {
			t.Fatal(err)
		}
		return count() - before
	}
	for _, sql := range []string{
		`update public.case_submissions set status = 'grading', grading_started_at = now() where id = $1`,
		`update public.case_submissions set score = '40/100', score_value = 40, status = 'graded', feedback_at = now() where id = $1`,
		`update public.case_submissions set ai_probability = 10, ai_decision = 'PASSED', ai_checked_at = now() where id = $1`,
	} {
		if n := calls(sql); n != 0 {
			t.Errorf("%s: the freeze trigger ran %d times", sql, n)
		}
	}
	for _, sql := range []string{
		`update public.case_submissions set submission_text = 'alt text' where id = $1`,
		`update public.case_submissions set difficulty_rating = 5 where id = $1`,
	} {
		if n := calls(sql); n != 1 {
			t.Errorf("%s: the freeze trigger ran %d times, want 1", sql, n)
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
