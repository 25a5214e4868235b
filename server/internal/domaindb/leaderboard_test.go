package domaindb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"casus/server/internal/authn"
	"casus/server/internal/testutil/testserver"
)

// Leaderboard (sql/app 016): the scoring rule, the weekly and all-time windows, the
// university filter, the opt-out and the columns the board exposes, all read as the
// `authenticated` role through the RPCs.

type boardRow struct {
	Rank     int
	Username string
	Uni      *string
	Points   int
	Self     bool
}

func (r boardRow) String() string {
	u := "-"
	if r.Uni != nil {
		u = *r.Uni
	}
	self := ""
	if r.Self {
		self = "*"
	}
	return fmt.Sprintf("#%d %s%s (%s) %d", r.Rank, r.Username, self, u, r.Points)
}

// student adds a student of university uni ("" for none) with the given username.
func (f *fixture) student(username, uni string) who {
	f.t.Helper()
	w := f.user(username+"@example.ro", username, "user")
	w.name = username
	if uni == "" {
		f.owner(`update public.user_profiles set university_code = null, university_name = null where id = $1`, w.id)
	} else {
		f.owner(`update public.user_profiles set university_code = $2 where id = $1`, w.id, uni)
	}
	return w
}

func (f *fixture) verifiedCase(code string) string {
	f.t.Helper()
	return f.ownerID(`insert into public.cases (case_code, title, level, week_number, domain, verified)
		values ($1, 'Caz ' || $1, 'Mediu', 1, 'civil', true) returning id`, code)
}

// graded records a graded submission of w on the case, submitted at `at` (SQL timestamptz
// expression), as the grader does; above 50 the trigger records the completion.
func (f *fixture) graded(w who, caseID string, score int, at string) {
	f.t.Helper()
	f.owner(`insert into public.case_submissions (user_id, case_id, submission_text, status, score, score_value, feedback_text, feedback_at, submitted_at)
		values ($1, $2, 'soluție', 'graded', $3::int::text || '/100', $3::int, 'ok', now(), `+at+`)`, w.id, caseID, score)
}

// completions gives w n completed verified cases (10 points each) at `at`.
func (f *fixture) completions(w who, n int, at string) {
	f.t.Helper()
	for i := 0; i < n; i++ {
		seq++
		f.graded(w, f.verifiedCase(fmt.Sprintf("CIV9L%04d", seq)), 80, at)
	}
}

func (f *fixture) board(w who, fn, period, scope string) ([]boardRow, error) {
	sql := `select rank, username, university_code, points, is_self from public.leaderboard_top($1, $2, 100)`
	args := []any{period, scope}
	if fn == "around" {
		sql = `select rank, username, university_code, points, is_self from public.leaderboard_around_me($1, $2)`
	}
	var out []boardRow
	err := f.as(w, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r boardRow
			if err := rows.Scan(&r.Rank, &r.Username, &r.Uni, &r.Points, &r.Self); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

func (f *fixture) mustBoard(w who, fn, period, scope string) []boardRow {
	f.t.Helper()
	rows, err := f.board(w, fn, period, scope)
	if err != nil {
		f.t.Fatalf("%s %s %s as %s: %v", fn, period, scope, w.name, err)
	}
	return rows
}

func points(rows []boardRow) map[string]int {
	m := map[string]int{}
	for _, r := range rows {
		m[r.Username] = r.Points
	}
	return m
}

func wantPoints(t *testing.T, what string, rows []boardRow, want map[string]int) {
	t.Helper()
	got := points(rows)
	if len(got) != len(want) {
		t.Errorf("%s: %v, want %v", what, rows, want)
		return
	}
	for u, p := range want {
		if got[u] != p {
			t.Errorf("%s: %v, want %v", what, rows, want)
			return
		}
	}
}

// 10 per completed verified case (score above 50, once per case), 1 per grilă answered
// exactly right in a finished exam simulation the first time the student answered it
// (issue 32: a grilă answered wrong before never scores); nothing else counts.
func TestLeaderboardScoringRule(t *testing.T) {
	f, q := grileFixture(t)
	a, b := f.student("scor_a", "UB"), f.student("scor_b", "UB")

	// Cases: a completion of a verified case; 50 is not above 50; an unverified case (A's
	// own generated one) does not count; a second completion of the same case adds nothing.
	f.graded(a, f.verified, 80, "now()")
	f.graded(a, f.verified, 95, "now()")
	f.graded(a, f.generated, 90, "now()")
	f.graded(b, f.verified, 50, "now()")
	wantPoints(t, "cases", f.mustBoard(a, "top", "all", "global"), map[string]int{"scor_a": 10})

	// An exam, finished through the grile RPCs: q1 and q2 right, q3 wrong → 2 points.
	right := map[string][]string{q[0]: {"a"}, q[1]: {"a", "c"}, q[2]: {"b"}}
	exam := func(w who, wrong string, finish bool) {
		t.Helper()
		e := f.startExam(w, 3, 45)
		for _, id := range q {
			chosen := right[id]
			if id == wrong {
				chosen = []string{"a"}
			}
			f.mustExam(w, e, id, chosen)
		}
		if finish {
			if err := f.as(w, func(tx pgx.Tx) error {
				_, err := tx.Exec(f.ctx, `select public.grile_exam_finish($1)`, e)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	exam(a, q[2], true)
	wantPoints(t, "first exam", f.mustBoard(b, "top", "week", "global"), map[string]int{"scor_a": 12})
	// The same questions again: each grilă counts once, and q3, first answered wrong (its
	// key then shown by the review), never scores.
	exam(a, q[2], true)
	wantPoints(t, "retaken exam", f.mustBoard(b, "top", "all", "global"), map[string]int{"scor_a": 12})
	exam(a, "", true)
	wantPoints(t, "third exam", f.mustBoard(b, "top", "all", "global"), map[string]int{"scor_a": 12})

	// Unfinished exams score nothing, even with every answer right and the deadline passed.
	exam(b, "", false)
	f.owner(`update public.grile_exams set deadline = now() - interval '1 minute', started_at = now() - interval '2 minutes' where user_id = $1`, b.id)
	wantPoints(t, "unfinished exam", f.mustBoard(a, "top", "all", "global"), map[string]int{"scor_a": 12})
	// Finished late: the answers given before the deadline count.
	if err := f.as(b, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.grile_exam_finish(id) from public.grile_exams where finished_at is null`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantPoints(t, "finished exam", f.mustBoard(a, "top", "all", "global"), map[string]int{"scor_a": 12, "scor_b": 3})
	if n := f.ownerInt(`select count(*) from public.leaderboard_grile_points where user_id = $1`, a.id); n != 2 {
		t.Errorf("A's grile points recorded: %d, want 2 (the questions first answered right)", n)
	}
}

// The week starts on Monday 00:00 in Bucharest; points before it count only all-time.
func TestLeaderboardWindows(t *testing.T) {
	f, q := grileFixture(t)
	a, b := f.student("fer_a", "UB"), f.student("fer_b", "UB")
	var start time.Time
	if err := f.pool.QueryRow(f.ctx, `select date_trunc('week', now() at time zone 'Europe/Bucharest') at time zone 'Europe/Bucharest'`).Scan(&start); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation("Europe/Bucharest")
	if err != nil {
		t.Fatal(err)
	}
	if l := start.In(loc); l.Weekday() != time.Monday || l.Hour() != 0 || l.Minute() != 0 || start.After(time.Now()) || time.Since(start) > 7*24*time.Hour {
		t.Fatalf("week start %v (%v in Bucharest), want the last Monday 00:00", start, l)
	}
	since := func(d string) string {
		return fmt.Sprintf(`(date_trunc('week', now() at time zone 'Europe/Bucharest') at time zone 'Europe/Bucharest') + interval '%s'`, d)
	}
	f.completions(a, 1, since("-1 second"))
	f.completions(a, 1, "now()")
	// Exactly the week's start belongs to the week; a microsecond earlier does not.
	f.owner(`insert into public.leaderboard_grile_points (user_id, question_id, earned_at) values ($1, $2, `+since("0 seconds")+`), ($1, $3, `+since("-1 microsecond")+`)`, b.id, q[0], q[1])

	wantPoints(t, "this week", f.mustBoard(a, "top", "week", "global"), map[string]int{"fer_a": 10, "fer_b": 1})
	wantPoints(t, "all time", f.mustBoard(a, "top", "all", "global"), map[string]int{"fer_a": 20, "fer_b": 2})
	// Only last week's points: on the all-time board, not on this week's.
	c := f.student("fer_c", "UB")
	f.completions(c, 1, since("-3 days"))
	if p := points(f.mustBoard(c, "top", "week", "global")); p["fer_c"] != 0 || len(p) != 2 {
		t.Errorf("last week's points on this week's board: %v", p)
	}
	if me := f.mustBoard(c, "around", "week", "global"); len(me) != 3 || !me[2].Self || me[2].Points != 0 || me[2].Rank != 3 {
		t.Errorf("caller without points this week: %v, want last, 0 points", me)
	}
	for _, period := range []string{"", "month", "WEEK"} {
		if _, err := f.board(a, "top", period, "global"); sqlState(err) != "22023" {
			t.Errorf("period %q: %v, want 22023", period, err)
		}
	}
}

// "Universitatea mea" ranks only the caller's university; a profile with none has no such board.
func TestLeaderboardUniversity(t *testing.T) {
	f := newFixture(t)
	a, b, c, d := f.student("uni_a", "UB"), f.student("uni_b", "UB"), f.student("uni_c", "UBB"), f.student("uni_d", "")
	f.completions(a, 1, "now()")
	f.completions(b, 2, "now()")
	f.completions(c, 3, "now()")
	f.completions(d, 4, "now()")
	wantPoints(t, "global", f.mustBoard(a, "top", "all", "global"), map[string]int{"uni_a": 10, "uni_b": 20, "uni_c": 30, "uni_d": 40})
	ub := f.mustBoard(a, "top", "all", "university")
	wantPoints(t, "UB", ub, map[string]int{"uni_a": 10, "uni_b": 20})
	if ub[0].Username != "uni_b" || ub[0].Rank != 1 || ub[1].Rank != 2 || *ub[1].Uni != "UB" || !ub[1].Self {
		t.Errorf("UB board: %v", ub)
	}
	wantPoints(t, "UBB", f.mustBoard(c, "top", "week", "university"), map[string]int{"uni_c": 30})
	if me := f.mustBoard(a, "around", "all", "university"); len(me) != 2 || me[1].Username != "uni_a" || me[1].Rank != 2 {
		t.Errorf("A around me in UB: %v", me)
	}
	if me := f.mustBoard(a, "around", "all", "global"); len(me) != 4 || me[3].Username != "uni_a" || me[3].Rank != 4 {
		t.Errorf("A around me globally: %v", me)
	}
	if rows := f.mustBoard(d, "top", "all", "university"); len(rows) != 0 {
		t.Errorf("no university: %v", rows)
	}
	if rows := f.mustBoard(d, "around", "all", "university"); len(rows) != 0 {
		t.Errorf("no university, around me: %v", rows)
	}
	if _, err := f.board(a, "top", "all", "UBB"); sqlState(err) != "22023" {
		t.Errorf("scope naming a university: %v, want 22023", err)
	}
}

// An opted-out student is on nobody's board — top, neighbours, either window or scope,
// and public_profiles — and sees only their own position.
func TestLeaderboardOptOut(t *testing.T) {
	f := newFixture(t)
	var ws []who
	for i := 0; i < 8; i++ {
		w := f.student(fmt.Sprintf("opt_%d", i), "UB")
		f.completions(w, i+1, "now()")
		ws = append(ws, w)
	}
	hidden := ws[4]
	setHidden := func(w who, v bool) {
		t.Helper()
		var got bool
		if err := f.as(w, func(tx pgx.Tx) error {
			return tx.QueryRow(f.ctx, `select public.set_leaderboard_hidden($1)`, v).Scan(&got)
		}); err != nil || got != v {
			t.Fatalf("set_leaderboard_hidden(%v): %v %v", v, got, err)
		}
	}
	if me := f.mustBoard(ws[0], "around", "all", "global"); !slices.ContainsFunc(me, func(r boardRow) bool { return r.Username == "opt_4" }) {
		t.Fatalf("before opting out, opt_4 is a neighbour of opt_0: %v", me)
	}
	setHidden(hidden, true)
	if v := f.ownerInt(`select hide_from_leaderboards::int from public.user_profiles where id = $1`, hidden.id); v != 1 {
		t.Fatalf("opt-out not stored")
	}
	for _, w := range append([]who{f.a, f.mod, f.admin}, ws...) {
		for _, period := range []string{"week", "all"} {
			for _, scope := range []string{"global", "university"} {
				for _, fn := range []string{"top", "around"} {
					rows := f.mustBoard(w, fn, period, scope)
					for _, r := range rows {
						if r.Username == "opt_4" && w.id != hidden.id {
							t.Errorf("%s %s %s as %s shows the opted-out user: %v", fn, period, scope, w.name, rows)
						}
					}
					if w.id == hidden.id && fn == "around" && (len(rows) != 1 || !rows[0].Self || rows[0].Points != 50 || rows[0].Rank != 4) {
						t.Errorf("opted-out user's own position (%s %s): %v, want only their row, #4 with 50", period, scope, rows)
					}
					if w.id == hidden.id && fn == "top" && len(rows) != 7 {
						t.Errorf("opted-out user's top board: %v, want the 7 others", rows)
					}
				}
			}
		}
	}
	// The ranks close up: opt_3 (40 points) is now fourth.
	if top := f.mustBoard(ws[0], "top", "all", "global"); top[3].Username != "opt_3" || top[3].Rank != 4 {
		t.Errorf("ranks after opt-out: %v", top)
	}
	for _, q := range []string{`select username from public.public_profiles`} {
		var names []string
		if err := f.as(ws[0], func(tx pgx.Tx) error {
			rows, err := tx.Query(f.ctx, q)
			if err != nil {
				return err
			}
			names, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(names, "opt_4") || !slices.Contains(names, "opt_3") {
			t.Errorf("%s: %v", q, names)
		}
	}
	setHidden(hidden, false)
	if top := f.mustBoard(ws[0], "top", "all", "global"); top[3].Username != "opt_4" || top[3].Rank != 4 {
		t.Errorf("opting back in: %v", top)
	}
	// Nobody sets another's flag: the RPC takes no user, the column has no update grant.
	if _, err := f.try(ws[0], `update public.user_profiles set hide_from_leaderboards = true where id = $1`, hidden.id); sqlState(err) != "42501" {
		t.Errorf("direct update of the flag: %v, want 42501", err)
	}
}

// Ties: the one who reached the points first ranks first, then the username. "Poziția ta"
// is the caller with up to five above and five below.
func TestLeaderboardRanksAndNeighbours(t *testing.T) {
	f := newFixture(t)
	var ws []who
	for i := 0; i < 13; i++ {
		w := f.student(fmt.Sprintf("vec_%02d", i), "UB")
		f.completions(w, 13-i, "now() - interval '1 day'")
		ws = append(ws, w)
	}
	// Ties at 10 points: vec_12 reached them a day ago, tie_c three hours ago; tie_b and tie_a at the same moment,
	// so the username decides (created in reverse order, so insertion order cannot).
	f.completions(f.student("tie_c", "UB"), 1, "now() - interval '3 hours'")
	for _, u := range []string{"tie_b", "tie_a"} {
		f.completions(f.student(u, "UB"), 1, "date_trunc('hour', now()) - interval '1 hour'")
	}
	top := f.mustBoard(f.a, "top", "all", "global")
	var order []string
	for i, r := range top {
		if r.Rank != i+1 {
			t.Fatalf("ranks not 1..n: %v", top)
		}
		order = append(order, r.Username)
	}
	if got := strings.Join(order[11:], ","); got != "vec_11,vec_12,tie_c,tie_a,tie_b" {
		t.Errorf("tie order: %s (board %v)", got, top)
	}
	for i := 0; i < 3; i++ {
		again := f.mustBoard(f.b, "top", "all", "global")
		for j := range again {
			if again[j].Username != top[j].Username || again[j].Rank != top[j].Rank {
				t.Fatalf("board not deterministic: %v vs %v", again, top)
			}
		}
	}
	check := func(w who, first, last, self int) {
		t.Helper()
		me := f.mustBoard(w, "around", "all", "global")
		if len(me) != last-first+1 || me[0].Rank != first || me[len(me)-1].Rank != last {
			t.Errorf("%s around me: %v, want ranks %d..%d", w.name, me, first, last)
			return
		}
		selfs := 0
		for _, r := range me {
			if r.Self {
				selfs++
				if r.Rank != self {
					t.Errorf("%s is #%d, want #%d", w.name, r.Rank, self)
				}
			}
		}
		if selfs != 1 {
			t.Errorf("%s around me: %d rows marked self: %v", w.name, selfs, me)
		}
	}
	check(ws[7], 3, 13, 8) // the middle: five each side
	check(ws[0], 1, 6, 1)  // the top: none above
	check(ws[1], 1, 7, 2)  // one above
	check(f.a, 12, 17, 17) // no points: last, after the 16 with points
	if top := f.mustBoard(f.a, "top", "all", "global"); len(top) != 16 || slices.ContainsFunc(top, func(r boardRow) bool { return r.Points == 0 }) {
		t.Errorf("the top board lists only students with points: %v", top)
	}
}

// The board's result has exactly rank, username, university_code, points, is_self — in SQL
// and through /rest/v1/rpc — and no value is an id or an e-mail.
func TestLeaderboardColumns(t *testing.T) {
	f := newFixture(t)
	c := f.student("col_c", "UBB")
	f.completions(f.a, 1, "now()")
	f.completions(c, 2, "now()")
	want := []string{"rank", "username", "university_code", "points", "is_self"}
	for _, q := range []string{`select * from public.leaderboard_top('all', 'global', 100)`, `select * from public.leaderboard_around_me('all', 'global')`} {
		var cols []string
		if err := f.as(f.a, func(tx pgx.Tx) error {
			rows, err := tx.Query(f.ctx, q)
			if err != nil {
				return err
			}
			for _, fd := range rows.FieldDescriptions() {
				cols = append(cols, fd.Name)
			}
			rows.Close()
			return rows.Err()
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cols, want) {
			t.Errorf("%s: columns %v, want %v", q, cols, want)
		}
	}

	srv := testserver.Start(t, nil)
	ctx := context.Background()
	const s1, s2 = "bbbbbbbb-0000-4000-8000-0000000000b1", "bbbbbbbb-0000-4000-8000-0000000000b2"
	if _, err := srv.Deps.Owner.Exec(ctx, `
		with u as (insert into auth.users (id, email, aud, role) values ($1, 'r1@x.ro', 'authenticated', 'authenticated'),
		             ($2, 'r2@x.ro', 'authenticated', 'authenticated') returning id),
		     p as (insert into public.user_profiles (id, email, name, username, university_code)
		             select id, id::text || '@x.ro', 'Nume', 'rest_' || right(id::text, 2), 'UB' from u returning id),
		     c as (insert into public.cases (case_code, title, level, week_number, domain, verified) values ('CIV1BOARD', 'Caz REST', 'Mediu', 1, 'civil', true) returning id)
		insert into public.case_submissions (user_id, case_id, submission_text, status, score, score_value, feedback_text, feedback_at)
		select p.id, c.id, 't', 'graded', '90/100', 90, 'ok', now() from p, c`, s1, s2); err != nil {
		t.Fatal(err)
	}
	tok := &authn.Claims{Role: authn.RoleAuthenticated}
	tok.Subject = s1
	tok.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	token, err := srv.Deps.Keys.Sign(tok)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"leaderboard_top", "leaderboard_around_me"} {
		body, _ := json.Marshal(map[string]any{"p_period": "all", "p_scope": "global"})
		req, _ := http.NewRequest("POST", srv.URL+"/rest/v1/rpc/"+fn, bytes.NewReader(body))
		req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var rows []map[string]any
		if res.StatusCode != 200 || json.Unmarshal(raw, &rows) != nil || len(rows) != 2 {
			t.Fatalf("%s: %d %s", fn, res.StatusCode, raw)
		}
		for _, r := range rows {
			var keys []string
			for k := range r {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, []string{"is_self", "points", "rank", "university_code", "username"}) {
				t.Errorf("%s row keys %v", fn, keys)
			}
		}
		if s := string(raw); strings.Contains(s, s1) || strings.Contains(s, s2) || strings.Contains(s, "@") {
			t.Errorf("%s leaks an id or e-mail: %s", fn, s)
		}
		// anon key alone: refused.
		req, _ = http.NewRequest("POST", srv.URL+"/rest/v1/rpc/"+fn, bytes.NewReader(body))
		req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		res, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 401 && res.StatusCode != 403 && res.StatusCode != 404 {
			t.Errorf("%s as anon: %d %s, want refused", fn, res.StatusCode, raw)
		}
	}
}
