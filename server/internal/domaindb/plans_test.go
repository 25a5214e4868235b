package domaindb

import (
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
)

// rowsRead runs sql for the caller under EXPLAIN ANALYZE and returns, per table, the
// rows its scans read: those they returned and those their filters threw away, over
// every loop.
func (f *fixture) rowsRead(w who, sql string, args ...any) map[string]float64 {
	f.t.Helper()
	var out []byte
	err := f.as(w, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, "explain (analyze, format json) "+sql, args...).Scan(&out)
	})
	if err != nil {
		f.t.Fatal(err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		f.t.Fatalf("explain: %v %s", err, out)
	}
	read := map[string]float64{}
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.Relation != "" {
			read[n.Relation] += (n.Rows + n.Removed + n.Rechecked) * n.Loops
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return read
}

type planNode struct {
	Relation  string     `json:"Relation Name"`
	Rows      float64    `json:"Actual Rows"`
	Loops     float64    `json:"Actual Loops"`
	Removed   float64    `json:"Rows Removed by Filter"`
	Rechecked float64    `json:"Rows Removed by Index Recheck"`
	Plans     []planNode `json:"Plans"`
}

// TestProgressFilterReachesIndexes: the progress page reads case_progress for one user.
// The view used to group every submission the caller could see and full-join the
// completions before it filtered, so the filter could not reach an index: whoever reads
// without RLS narrowing it (the service role) read both tables whole, and a student's
// read did too whenever the planner misjudged the OR'ed read policies (stale statistics,
// as at 600 simulated students: a fifth of the database's statement time). Its rows are
// unchanged, including a completion with no submission left.
func TestProgressFilterReachesIndexes(t *testing.T) {
	f := newFixture(t)
	// Another student's history, larger than A's by far.
	for range 4 {
		f.owner(`insert into public.case_submissions (user_id, case_id, submission_text)
			select $1, $2, 'altă soluție ' || g from generate_series(1, 100) g`, f.b.id, f.verified)
	}
	f.owner(`insert into public.case_completions (user_id, case_id, completed_at) values ($1, $2, now())`, f.b.id, f.generated)
	const read = `select case_id, case_code, case_title, status, completed_at, submission_count from public.case_progress where user_id = $1::text::uuid`
	for _, w := range []who{f.svc, f.a} {
		read := f.rowsRead(w, read, f.a.id)
		for _, table := range []string{"case_submissions", "case_completions"} {
			if read[table] > 5 { // A has one submission and no completion
				t.Errorf("%s: A's progress read %v rows of %s", w.role, read[table], table)
			}
		}
	}

	// A completed case whose submissions are gone (a completion is never revoked).
	f.owner(`update public.case_submissions set score = '80/100', score_value = 80, status = 'graded', feedback_at = now(), feedback_text = 'ok' where id = $1`, f.subA)
	f.owner(`insert into public.case_completions (user_id, case_id, completed_at) values ($1, $2, '2026-02-01T10:00:00Z')`, f.a.id, f.generated)
	type row struct {
		status string
		count  int64
	}
	got := map[string]row{}
	err := f.as(f.a, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, `select case_id::text, status, submission_count from public.case_progress where user_id = $1`, f.a.id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var r row
			if err := rows.Scan(&id, &r.status, &r.count); err != nil {
				return err
			}
			got[id] = r
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]row{f.verified: {"completed", 1}, f.generated: {"completed", 0}}
	if len(got) != len(want) || got[f.verified] != want[f.verified] || got[f.generated] != want[f.generated] {
		t.Fatalf("progress rows = %v, want %v", got, want)
	}
}
