package domaindb

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

// Fair play (issue 32, sql/app 024): knowing a grilă's key in advance earns nothing, and
// anonymous accounts neither score nor keep more than a small trial.

// moreGrile adds n questions with key {a} (codes GCIV100…).
func (f *fixture) moreGrile(n int) []string {
	f.t.Helper()
	var ids []string
	for i := range n {
		ids = append(ids, f.ownerID(`insert into public.grile_questions (code, domain, category_id, subcategory, level, law_as_of,
			statement, options, correct, explanations)
			values ($1, 'civil', 'c9', 'S', 'Mediu', '2026-11-01', $2, '{"varianta a","varianta b","varianta c"}', '{a}',
			'{"Corect.","Greșit.","Greșit."}') returning id`,
			fmt.Sprintf("GCIV%03d", 100+i), fmt.Sprintf("Enunțul grilei suplimentare numărul %d, destul de lung:", i)))
	}
	return ids
}

// finishExam answers every question of w's exam with key (nil: blank) and finishes it.
func (f *fixture) finishExam(w who, exam string, key func(q string) []string) {
	f.t.Helper()
	var qs []string
	if err := f.as(w, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, `select question_id from public.grile_exam_answers where exam_id = $1 order by position`, exam)
		if err != nil {
			return err
		}
		qs, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	for _, q := range qs {
		if c := key(q); c != nil {
			f.mustExam(w, exam, q, c)
		}
	}
	if err := f.as(w, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.grile_exam_finish($1)`, exam)
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) grilePoints(w who) int {
	return f.ownerInt(`select count(*) from public.leaderboard_grile_points where user_id = $1`, w.id)
}

// The farming of the probe: a key read in practice, or from the review of an exam finished
// blank, earns no point afterwards; a new exam draws the grile not yet answered.
func TestGrileKnownKeysEarnNothing(t *testing.T) {
	f, q := grileFixture(t)
	key := map[string][]string{q[0]: {"a"}, q[1]: {"a", "c"}, q[2]: {"b"}}
	now := time.Now()
	wrong, right := card(now, 1, 2), card(now, 3, 2)

	// Practice reveals q1's key; an exam answering q1 right then earns nothing for it.
	if _, err := f.answer(f.a, q[0], []string{"b"}, wrong, right); err != nil {
		t.Fatal(err)
	}
	e := f.startExam(f.a, 3, 45)
	f.finishExam(f.a, e, func(id string) []string { return key[id] })
	if n := f.grilePoints(f.a); n != 2 {
		t.Fatalf("A's points after an exam with one key seen in practice: %d, want 2", n)
	}

	// B finishes an exam blank, reads the review, starts again: nothing.
	e = f.startExam(f.b, 3, 45)
	f.finishExam(f.b, e, func(string) []string { return nil })
	if err := f.as(f.b, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select * from public.grile_exam_review($1)`, e)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e = f.startExam(f.b, 3, 45)
		f.finishExam(f.b, e, func(id string) []string { return key[id] })
	}
	if n := f.grilePoints(f.b); n != 0 {
		t.Fatalf("B's points from keys read in a review: %d, want 0", n)
	}

	// Exams draw the grile the student has not answered first.
	fresh := f.moreGrile(3)
	e = f.startExam(f.b, 3, 45)
	got := f.ownerInt(`select count(*) from public.grile_exam_answers where exam_id = $1 and question_id = any($2::uuid[])`, e, fresh)
	if got != 3 {
		t.Fatalf("a new exam drew %d of the 3 unanswered grile, want all 3", got)
	}
}

// Practice reveals the keys of at most 60 new grile an hour per student (the probe read
// the 100 keys of a running exam in 0.2 s); grile already answered stay open.
func TestGrilePracticeKeysAreRateLimited(t *testing.T) {
	f, q := grileFixture(t)
	more := f.moreGrile(61)
	now := time.Now()
	wrong, right := card(now, 1, 2), card(now, 3, 2)
	for i, id := range more[:60] {
		if _, err := f.answer(f.a, id, []string{"a"}, wrong, right); err != nil {
			t.Fatalf("new grilă %d: %v", i, err)
		}
	}
	_, err := f.answer(f.a, more[60], []string{"a"}, wrong, right)
	mustState(t, err, "PGRST")
	if _, err := f.answer(f.a, more[0], []string{"a"}, wrong, right); err != nil {
		t.Fatalf("a grilă already answered: %v", err)
	}
	if _, err := f.answer(f.b, q[0], []string{"a"}, wrong, right); err != nil {
		t.Fatalf("another student: %v", err)
	}
}

// Anonymous visitors practise at most 20 grile, start no exam, earn nothing and are on
// no board; what they kept goes with the account.
func TestAnonymousGrileAreBounded(t *testing.T) {
	f, _ := grileFixture(t)
	more := f.moreGrile(21)
	id := f.anonymousUser()
	anon := func(fn func(pgx.Tx) error) error {
		return db.AsRole(f.ctx, f.pool, anonClaims(id, true), db.ReadWrite, db.RequestInfo{Method: "POST", Path: "/rest/v1/rpc/x"}, fn)
	}
	now := time.Now()
	wrong, right := card(now, 1, 2), card(now, 3, 2)
	answer := func(q string) error {
		return anon(func(tx pgx.Tx) error {
			_, err := tx.Exec(f.ctx, `select public.grile_answer($1, '{a}', $2::jsonb, $3::jsonb)`, q, wrong, right)
			return err
		})
	}
	for i, q := range more[:20] {
		if err := answer(q); err != nil {
			t.Fatalf("anonymous grilă %d: %v", i, err)
		}
	}
	mustState(t, answer(more[20]), "42501")
	for range 120 {
		if err := answer(more[0]); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.ownerInt(`select count(*) from public.grile_attempts where user_id = $1`, id); n > 100 {
		t.Errorf("anonymous attempts kept: %d, want at most 100", n)
	}
	mustState(t, anon(func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.grile_exam_start(null, null, null, 3, 45)`)
		return err
	}), "42501")
	// An exam made by hand for the anonymous account (as before this change) earns nothing.
	exam := f.ownerID(`insert into public.grile_exams (user_id, duration_seconds, deadline, question_count)
		values ($1, 600, now() + interval '10 minutes', 1) returning id`, id)
	f.owner(`insert into public.grile_exam_answers (exam_id, position, question_id, chosen) values ($1, 1, $2, '{a}')`, exam, more[20])
	f.owner(`select public.grile_exam_score($1)`, exam)
	if n := f.ownerInt(`select count(*) from public.leaderboard_grile_points where user_id = $1`, id); n != 0 {
		t.Errorf("anonymous points: %d", n)
	}
	// Deleting the account removes all of it.
	f.owner(`delete from auth.users where id = $1`, id)
	for _, tbl := range []string{"grile_attempts", "grile_cards", "grile_seen", "grile_exams"} {
		if n := f.ownerInt(`select count(*) from public.`+tbl+` where user_id = $1`, id); n != 0 {
			t.Errorf("%s rows left after the anonymous account was deleted: %d", tbl, n)
		}
	}
}

// public_profiles shows usernames and university codes of those on the boards, to
// permanent signed-in users only.
func TestPublicProfilesExposeOnlyTheBoard(t *testing.T) {
	f := newFixture(t)
	anonID := f.anonymousUser()
	var cols []string
	err := f.as(f.a, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, `select * from public.public_profiles`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for _, d := range rows.FieldDescriptions() {
			cols = append(cols, d.Name)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if n != 4 {
			return fmt.Errorf("%d rows, want the 4 permanent users", n)
		}
		return rows.Err()
	})
	if err != nil || fmt.Sprint(cols) != "[username university_code]" {
		t.Fatalf("public_profiles as A: columns %v, %v", cols, err)
	}
	var n int
	if err := db.AsRole(f.ctx, f.pool, anonClaims(anonID, true), db.ReadOnly, db.RequestInfo{Method: "GET", Path: "/rest/v1/public_profiles"}, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select count(*) from public.public_profiles`).Scan(&n)
	}); err != nil || n != 0 {
		t.Fatalf("public_profiles as an anonymous user: %d rows, %v", n, err)
	}
	// The server warns about exposed views running with their owner's rights (advisor.go);
	// the app's own views give it nothing to warn about.
	if n := f.ownerInt(`select count(*) from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'v'
		and not coalesce('security_invoker=true' = any(c.reloptions), false)`); n != 0 {
		t.Fatalf("%d of the app's views run with their owner's rights", n)
	}
}

// An admin whose role requires MFA has no admin power at aal1 before enrolling either.
func TestAdminWithoutFactorHasNoPowersAtAAL1(t *testing.T) {
	f := newFixture(t)
	if n, err := f.countAt(f.admin, "aal1", `select id from public.user_profiles`); err != nil || n != 1 {
		t.Fatalf("admin at aal1 without a factor: %d profiles (want own only), %v", n, err)
	}
	if n, err := f.countAt(f.admin, "aal1", `select id from public.feedback`); err != nil || n != 0 {
		t.Fatalf("admin at aal1 without a factor reads %d feedback rows, %v", n, err)
	}
}

// Extension routines (pgcrypto, pg_trgm, unaccent) are not executable by the API roles,
// except the unaccent the search folding needs.
func TestExtensionFunctionsRevoked(t *testing.T) {
	f := newFixture(t)
	n := f.ownerInt(`select count(*) from pg_proc p
		join pg_depend d on d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'
		where p.pronamespace = 'public'::regnamespace and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
		  and p.oid <> 'public.unaccent(regdictionary, text)'::regprocedure`)
	if n != 0 {
		t.Fatalf("%d extension routines executable by anon or authenticated", n)
	}
	if _, err := f.try(f.anon, `select public.gen_random_bytes(8)`); sqlState(err) != "42501" {
		t.Fatalf("anon calls gen_random_bytes: %v", err)
	}
	if _, err := f.try(f.a, `select public.crypt('x', public.gen_salt('bf'))`); sqlState(err) != "42501" {
		t.Fatalf("authenticated calls crypt: %v", err)
	}
}
