package domaindb

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The grading path (the server's owner pool, or service_role) writes scores; completion is
// recorded from the first score above 50 and never reverts.
func TestGradingAndProgress(t *testing.T) {
	f := newFixture(t)
	progress := func() (status string, completed *time.Time) {
		err := f.as(f.a, func(tx pgx.Tx) error {
			return tx.QueryRow(f.ctx, `select status, completed_at from public.case_progress where case_id = $1`, f.verified).Scan(&status, &completed)
		})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if s, c := progress(); s != "in_progress" || c != nil {
		t.Fatalf("after a submission: %s %v", s, c)
	}
	// Grading exactly 50 does not complete.
	f.owner(`update public.case_submissions set score = '50/100', score_value = 50, status = 'graded', feedback_at = now(), feedback_text = 'ok' where id = $1`, f.subA)
	if s, _ := progress(); s != "in_progress" {
		t.Fatalf("at 50: %s", s)
	}
	// A second submission scored 51 by service_role completes, dated by that submission.
	second := f.ownerID(`insert into public.case_submissions (user_id, case_id, submission_text, submitted_at) values ($1, $2, 'din nou', '2026-01-02T10:00:00Z') returning id`, f.a.id, f.verified)
	err := f.as(f.svc, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `update public.case_submissions set score = '51/100', score_value = 51, status = 'graded', feedback_at = now() where id = $1`, second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	if s, c := progress(); s != "completed" || c == nil || !c.Equal(want) {
		t.Fatalf("after 51: %s %v", s, c)
	}
	// Re-grading down does not revert.
	f.owner(`update public.case_submissions set score = '10/100', score_value = 10 where id = $1`, second)
	if s, c := progress(); s != "completed" || !c.Equal(want) {
		t.Fatalf("after regrade: %s %v", s, c)
	}
	// The view reports percent; B sees none of it.
	var pct float64
	err = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select score_value from public.submissions_with_details where id = $1`, f.subA).Scan(&pct)
	})
	if err != nil || pct != 50 {
		t.Fatalf("percent: %v %v", pct, err)
	}
	var n int
	if err := f.as(f.b, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select count(*) from public.case_progress where user_id = $1`, f.a.id).Scan(&n)
	}); err != nil || n != 0 {
		t.Fatalf("B sees A's progress: %d %v", n, err)
	}
	// A graded submission can no longer be edited by its owner.
	m, err := f.try(f.a, `update public.case_submissions set submission_text = 'alt text' where id = $1`, f.subA)
	if err != nil || m != 0 {
		t.Fatalf("edit after grading: %d %v", m, err)
	}
	// graded needs a score.
	_, err = f.pool.Exec(f.ctx, `update public.case_submissions set status = 'graded', score_value = null where id = $1`, f.subB)
	mustState(t, err, "23514")
	// Leaderboard (016): usernames and points, no e-mail; A's completion is 10 points.
	var user string
	var points int
	if err := f.as(f.b, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select username, points from public.leaderboard_top('all', 'global', 5) limit 1`).Scan(&user, &points)
	}); err != nil || user != "student_a" || points != 10 {
		t.Fatalf("leaderboard: %s %d %v", user, points, err)
	}
}

func TestCaseNormalisationAndConstraints(t *testing.T) {
	f := newFixture(t)
	for in, want := range map[string]string{"usor": "Ușor", "UȘOR": "Ușor", "uşor": "Ușor", " Mediu ": "Mediu", "DIFICIL": "Dificil"} {
		var got string
		if err := f.pool.QueryRow(f.ctx, `insert into public.cases (case_code, title, level) values ('civ1' || md5($1), 't', $1) returning level`, in).Scan(&got); err != nil || got != want {
			t.Errorf("level %q → %q (%v), want %q", in, got, err, want)
		}
	}
	var code, domain string
	if err := f.pool.QueryRow(f.ctx, `insert into public.cases (case_code, title) values (' con9abc ', 't') returning case_code, domain`).Scan(&code, &domain); err != nil ||
		code != "CON9ABC" || domain != "constitutional" {
		t.Errorf("code/domain: %q %q %v", code, domain, err)
	}
	bad := []struct{ sql, state string }{
		{`insert into public.cases (case_code, title, level) values ('CIV1ZZZ', 't', 'greu')`, "23514"},
		{`insert into public.cases (case_code, title, week_number) values ('CIV1ZZZ', 't', 0)`, "23514"},
		{`insert into public.cases (case_code, title, week_number) values ('CIV1ZZZ', 't', 13)`, "23514"},
		{`insert into public.cases (case_code, title) values ('civ1aaa', 't')`, "23505"},
		{`insert into public.cases (case_code, title) values ('ROM1AAA', 't')`, "23502"},
		{`insert into public.cases (case_code, title) values ('CIV 1', 't')`, "23514"},
		{`insert into public.case_submissions (user_id, case_id, submission_text, difficulty_rating) values ((select id from auth.users limit 1), (select id from public.cases limit 1), 'x', 2)`, "23514"},
		{`insert into public.case_submissions (user_id, case_id, submission_text) values ((select id from auth.users limit 1), (select id from public.cases limit 1), '  ')`, "23514"},
		{`update public.case_analysis_steps set step_number = 1`, "23505"},
		{`insert into public.user_profiles (id, email, name, username, role) values ((select id from auth.users where email = 'b@example.ro'), 'x', 'Xx', 'yyy', 'root')`, "23514"},
		{`insert into public.feedback (body) values ('')`, "23514"},
		{`insert into public.chat_conversations (user_id, conversation_data) values ((select id from auth.users limit 1), '{}')`, "23514"},
	}
	for _, b := range bad {
		_, err := f.pool.Exec(f.ctx, b.sql)
		if sqlState(err) != b.state {
			t.Errorf("%s: %v, want %s", b.sql, err, b.state)
		}
	}
	// Deleting an auth user removes their profile, submissions and conversations; their
	// generated case stays, authorless.
	f.owner(`delete from auth.users where id = $1`, f.a.id)
	if n := f.ownerInt(`select count(*) from public.user_profiles where id = $1`, f.a.id) +
		f.ownerInt(`select count(*) from public.case_submissions where user_id = $1`, f.a.id); n != 0 {
		t.Errorf("%d rows of A left", n)
	}
	if n := f.ownerInt(`select count(*) from public.cases where id = $1 and user_id is null`, f.generated); n != 1 {
		t.Errorf("generated case gone or still owned")
	}
}

// An author cannot delete their case once other students worked on it (the cascade would
// take their submissions).
func TestAuthorDeleteKeepsOthersWork(t *testing.T) {
	f := newFixture(t)
	f.owner(`insert into public.case_submissions (user_id, case_id, submission_text) values ($1, $2, 'x')`, f.b.id, f.generated)
	n, err := f.try(f.a, `delete from public.cases where id = $1`, f.generated)
	if err != nil || n != 0 {
		t.Fatalf("deleted: %d %v", n, err)
	}
}
