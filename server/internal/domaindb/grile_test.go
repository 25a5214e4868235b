package domaindb

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Grile (sql/app 015): scoring on the server, the exam deadline, the FSRS card kept per
// user, the answer key closed until answered or finished, and owner-only rows.

// grileFixture adds three questions: q1 {a} and q2 {a,c} in category c1, q3 {b} in c2.
func grileFixture(t *testing.T) (*fixture, []string) {
	f := newFixture(t)
	var ids []string
	for i, q := range []struct{ cat, correct string }{{"c1", "{a}"}, {"c1", "{a,c}"}, {"c2", "{b}"}} {
		ids = append(ids, f.ownerID(`insert into public.grile_questions (code, domain, category_id, subcategory, level, law_as_of,
			statement, options, correct, explanations, citations)
			values ($1, 'civil', $2, 'S', 'Mediu', '2026-11-01', $3, '{"varianta a","varianta b","varianta c"}', $4,
			'{"Corect: art. 1 C.civ.","Greșit: art. 2 C.civ.","Greșit: art. 3 C.civ."}',
			'[[{"code":"civil","article":"1","label":"art. 1 C.civ."}],[],[]]') returning id`,
			fmt.Sprintf("GCIV%03d", i+1), q.cat, fmt.Sprintf("Enunțul grilei numărul %d, cu destule caractere:", i+1), q.correct))
	}
	return f, ids
}

// card builds a ts-fsrs card reviewed at `at`, due `days` later.
func card(at time.Time, days float64, state int) string {
	b, _ := json.Marshal(map[string]any{
		"due": at.Add(time.Duration(days * 24 * float64(time.Hour))).Format(time.RFC3339Nano), "last_review": at.Format(time.RFC3339Nano),
		"stability": days, "difficulty": 5.5, "elapsed_days": 0, "scheduled_days": int(days), "learning_steps": 0,
		"reps": 1, "lapses": 0, "state": state,
	})
	return string(b)
}

type answerResult struct {
	IsCorrect    bool      `json:"is_correct"`
	Correct      []string  `json:"correct"`
	Explanations []string  `json:"explanations"`
	Citations    [][]any   `json:"citations"`
	Due          time.Time `json:"due"`
	Chosen       []string  `json:"chosen"`
}

func (f *fixture) answer(w who, q string, chosen []string, wrong, right string) (answerResult, error) {
	var raw []byte
	err := f.as(w, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select public.grile_answer($1, $2, $3::jsonb, $4::jsonb)`, q, chosen, wrong, right).Scan(&raw)
	})
	var r answerResult
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	return r, err
}

// The bar exam's rule: a question counts only when exactly the correct set is chosen — a
// subset, a superset or nothing scores nothing, in practice and in exams alike.
func TestGrileScoringRule(t *testing.T) {
	f, q := grileFixture(t)
	now := time.Now()
	wrong, right := card(now, 1, 2), card(now, 3, 2)
	for _, c := range []struct {
		q      string
		chosen []string
		ok     bool
	}{
		{q[0], []string{"a"}, true}, {q[0], []string{"a", "b"}, false}, {q[1], []string{"a"}, false},
		{q[1], []string{"c", "a", "c"}, true}, {q[1], []string{"a", "b", "c"}, false}, {q[2], []string{"b"}, true},
	} {
		r, err := f.answer(f.a, c.q, c.chosen, wrong, right)
		if err != nil || r.IsCorrect != c.ok {
			t.Errorf("answer %v: %+v %v, want correct=%v", c.chosen, r, err, c.ok)
		}
		if err == nil && (len(r.Explanations) != 3 || len(r.Correct) == 0 || len(r.Citations) != 3) {
			t.Errorf("answer key not revealed after answering: %+v", r)
		}
	}
	for _, bad := range [][]string{{}, {"d"}, nil} {
		if _, err := f.answer(f.a, q[0], bad, wrong, right); sqlState(err) != "22023" {
			t.Errorf("answer %v: %v, want 22023", bad, err)
		}
	}
	if n := f.ownerInt(`select count(*) from public.grile_attempts where user_id = $1 and is_correct`, f.a.id); n != 3 {
		t.Errorf("%d correct attempts recorded, want 3", n)
	}

	// An exam over the three: q1 exactly, q2 a subset, q3 left blank → 1 of 3.
	exam := f.startExam(f.b, 3, 45)
	f.mustExam(f.b, exam, q[0], []string{"a"})
	f.mustExam(f.b, exam, q[1], []string{"a"})
	var correct int
	var results []byte
	err := f.as(f.b, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select correct_count, results from public.grile_exam_finish($1)`, exam).Scan(&correct, &results)
	})
	if err != nil || correct != 1 {
		t.Fatalf("finish: %v, correct_count %d, want 1", err, correct)
	}
	var per []struct {
		CategoryID     string `json:"category_id"`
		Total, Correct int
	}
	_ = json.Unmarshal(results, &per)
	if fmt.Sprint(per) != "[{c1 2 1} {c2 1 0}]" {
		t.Errorf("per-category results %s", results)
	}
	// Finishing again changes nothing; the score cannot be rewritten by the student.
	if _, err := f.try(f.b, `update public.grile_exams set correct_count = 3 where id = $1`, exam); sqlState(err) != "42501" {
		t.Errorf("student rewrote the score: %v", err)
	}
	if _, err := f.try(f.b, `insert into public.grile_exams (user_id, duration_seconds, deadline, question_count, finished_at, correct_count)
		values (auth.uid(), 60, now(), 3, now(), 3)`); sqlState(err) != "42501" {
		t.Errorf("student inserted a finished exam: %v", err)
	}
	if _, err := f.try(f.b, `update public.grile_exam_answers set chosen = '{b}' where exam_id = $1`, exam); sqlState(err) != "42501" {
		t.Errorf("student changed an answer directly: %v", err)
	}
}

func (f *fixture) startExam(w who, count, minutes int) string {
	f.t.Helper()
	var id string
	if err := f.as(w, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select id from public.grile_exam_start(null, null, null, $1, $2)`, count, minutes).Scan(&id)
	}); err != nil {
		f.t.Fatalf("grile_exam_start: %v", err)
	}
	return id
}

func (f *fixture) examAnswer(w who, exam, q string, chosen []string) error {
	return f.as(w, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.grile_exam_answer($1, $2, $3)`, exam, q, chosen)
		return err
	})
}

func (f *fixture) mustExam(w who, exam, q string, chosen []string) {
	f.t.Helper()
	if err := f.examAnswer(w, exam, q, chosen); err != nil {
		f.t.Fatalf("grile_exam_answer: %v", err)
	}
}

// The deadline is the database's: after it no answer is taken, and the exam finishes at
// the deadline even when the student comes back later. The key stays closed meanwhile.
func TestGrileExamDeadline(t *testing.T) {
	f, q := grileFixture(t)
	exam := f.startExam(f.a, 3, 30)
	if n := f.ownerInt(`select count(*) from public.grile_exam_answers where exam_id = $1`, exam); n != 3 {
		t.Fatalf("%d questions drawn, want 3", n)
	}
	f.mustExam(f.a, exam, q[0], []string{"a"})
	f.mustExam(f.a, exam, q[2], []string{"b"})

	// While it runs: no answer key, not through review, not through practice.
	err := f.as(f.a, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select * from public.grile_exam_review($1)`, exam)
		return err
	})
	mustState(t, err, "42501")
	_, err = f.answer(f.a, q[1], []string{"a"}, card(time.Now(), 1, 2), card(time.Now(), 3, 2))
	mustState(t, err, "42501")
	if _, err := f.try(f.a, `select correct from public.grile_questions`); sqlState(err) != "42501" {
		t.Errorf("answer key readable: %v", err)
	}

	// The time runs out (moved back by the owner: the deadline is the server's clock).
	f.owner(`update public.grile_exams set started_at = started_at - interval '31 minutes', deadline = deadline - interval '31 minutes' where id = $1`, exam)
	mustState(t, f.examAnswer(f.a, exam, q[2], []string{"c"}), "42501")
	mustState(t, f.examAnswer(f.a, exam, q[1], []string{"a", "c"}), "42501")
	var correct int
	var onTime bool
	err = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select correct_count, finished_at = deadline from public.grile_exam_finish($1)`, exam).Scan(&correct, &onTime)
	})
	if err != nil || correct != 2 || !onTime {
		t.Fatalf("late finish: %v correct=%d finished at deadline=%v, want 2 and true", err, correct, onTime)
	}
	mustState(t, f.examAnswer(f.a, exam, q[1], []string{"a", "c"}), "42501")

	// Finished: every question reviewable with the key and the explanations.
	var rows, keyed int
	err = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select count(*), count(*) filter (where cardinality(correct) > 0 and cardinality(explanations) = 3)
			from public.grile_exam_review($1)`, exam).Scan(&rows, &keyed)
	})
	if err != nil || rows != 3 || keyed != 3 {
		t.Errorf("review: %v %d rows %d with key", err, rows, keyed)
	}

	// A running exam is not left open by starting another: the first is finished.
	first := f.startExam(f.b, 2, 45)
	f.startExam(f.b, 1, 45)
	if n := f.ownerInt(`select count(*) from public.grile_exams where id = $1 and finished_at is not null`, first); n != 1 {
		t.Error("starting a second exam left the first open")
	}
	// Bounds.
	err = f.as(f.a, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.grile_exam_start(null, null, null, 500, 45)`)
		return err
	})
	mustState(t, err, "22023")
}

// FSRS: the card of the outcome the server scored is kept, dated by the browser's clock
// (within 36 hours of the server's); a wrong answer never comes back later than a right
// one; the card survives and is what the next practice session sees, due cards first.
func TestGrileFSRSPersistence(t *testing.T) {
	f, q := grileFixture(t)
	// The browser's clock is two hours ahead: its review dates are kept.
	browser := time.Now().Add(2 * time.Hour)
	if _, err := f.answer(f.a, q[0], []string{"b"}, card(browser, 1, 2), card(browser, 3, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.answer(f.a, q[2], []string{"b"}, card(browser, 1, 2), card(browser, 4, 2)); err != nil {
		t.Fatal(err)
	}
	var dueHours, lastAgo float64
	var state, reps int
	var lastCorrect bool
	if err := f.pool.QueryRow(f.ctx, `select extract(epoch from due - last_review) / 3600, abs(extract(epoch from last_review - $3::timestamptz)),
		state, reps, last_correct from public.grile_cards where user_id = $1 and question_id = $2`, f.a.id, q[0], browser).
		Scan(&dueHours, &lastAgo, &state, &reps, &lastCorrect); err != nil {
		t.Fatal(err)
	}
	if dueHours < 23.99 || dueHours > 24.01 || lastAgo > 0.01 || state != 2 || reps != 1 || lastCorrect {
		t.Errorf("wrong answer's card: due after %.2f h, review %.3f s off the browser's, state %d reps %d correct %v", dueHours, lastAgo, state, reps, lastCorrect)
	}
	if n := f.ownerInt(`select count(*) from public.grile_cards where question_id = $1 and due - last_review = interval '4 days' and last_correct`, q[2]); n != 1 {
		t.Error("right answer's card not kept")
	}
	// The next day (the browser's clock) q1 is due and comes first; q2 was never answered
	// and comes next; q3 (due in 4 days) last.
	tomorrow := time.Now().Add(27 * time.Hour)
	var order []string
	var dueFlags []bool
	var cardJSON []byte
	err := f.as(f.a, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, `select id, is_due, card from public.grile_practice_set(null, null, null, 10, $1)`, tomorrow)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var due bool
			var c []byte
			if err := rows.Scan(&id, &due, &c); err != nil {
				return err
			}
			if id == q[0] {
				cardJSON = c
			}
			order, dueFlags = append(order, id), append(dueFlags, due)
		}
		return rows.Err()
	})
	if err != nil || fmt.Sprint(order) != fmt.Sprint([]string{q[0], q[1], q[2]}) || fmt.Sprint(dueFlags) != "[true false false]" {
		t.Fatalf("practice set %v %v %v, want %v", err, order, dueFlags, []string{q[0], q[1], q[2]})
	}
	var c struct {
		Reps  int     `json:"reps"`
		State int     `json:"state"`
		Stab  float64 `json:"stability"`
	}
	if json.Unmarshal(cardJSON, &c) != nil || c.Reps != 1 || c.State != 2 || c.Stab != 1 {
		t.Errorf("card handed back for the next review: %s", cardJSON)
	}
	// Only due cards, "De recapitulat azi".
	var due int
	_ = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select count(*) from public.grile_practice_set(null, null, null, 10, $1, true)`, tomorrow).Scan(&due)
	})
	if due != 1 {
		t.Errorf("%d due questions tomorrow, want 1", due)
	}
	// Progress per category.
	var learning, fresh int
	_ = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select learning, new from public.grile_progress() where category_id = 'c1'`).Scan(&learning, &fresh)
	})
	if learning != 1 || fresh != 1 {
		t.Errorf("c1 progress: learning %d new %d, want 1 and 1", learning, fresh)
	}

	// A wrong answer scheduled later than a right one, or a nonsense card, is refused.
	now := time.Now()
	for name, pair := range map[string][2]string{
		"wrong later than right": {card(now, 5, 2), card(now, 3, 2)},
		"state new":              {card(now, 1, 0), card(now, 3, 2)},
		"due before review":      {card(now, -1, 2), card(now, 3, 2)},
		"not a card":             {`{"due": "mâine"}`, card(now, 3, 2)},
		"a century":              {card(now, 1, 2), card(now, 40000, 2)},
		"clock 40 h ahead":       {card(now.Add(40*time.Hour), 1, 2), card(now.Add(40*time.Hour), 3, 2)},
		"clock 40 h behind":      {card(now.Add(-40*time.Hour), 1, 2), card(now.Add(-40*time.Hour), 3, 2)},
	} {
		if _, err := f.answer(f.a, q[1], []string{"a"}, pair[0], pair[1]); sqlState(err) != "22023" {
			t.Errorf("%s: %v, want 22023", name, err)
		}
	}
}

// Another user sees nothing of a student's grile; nobody writes the tables directly; the
// signed-out see nothing at all.
func TestGrileRLS(t *testing.T) {
	f, q := grileFixture(t)
	now := time.Now()
	if _, err := f.answer(f.a, q[0], []string{"a"}, card(now, 1, 2), card(now, 3, 2)); err != nil {
		t.Fatal(err)
	}
	exam := f.startExam(f.a, 2, 45)
	for _, table := range []string{"grile_attempts", "grile_cards", "grile_exams", "grile_exam_answers"} {
		if n, err := f.try(f.a, `select * from public.`+table); err != nil || n == 0 {
			t.Errorf("A reads own %s: %d %v", table, n, err)
		}
		if n, err := f.try(f.b, `select * from public.`+table); err != nil || n != 0 {
			t.Errorf("B reads %d rows of A's %s (%v)", n, table, err)
		}
		if _, err := f.try(f.anon, `select * from public.`+table); sqlState(err) != "42501" {
			t.Errorf("anon reads %s: %v", table, err)
		}
		if _, err := f.try(f.a, `delete from public.`+table); sqlState(err) != "42501" {
			t.Errorf("A deletes from %s directly: %v", table, err)
		}
	}
	if _, err := f.try(f.a, `insert into public.grile_cards (user_id, question_id, due, stability, difficulty, state)
		values (auth.uid(), $1, now(), 1, 5, 2)`, q[1]); sqlState(err) != "42501" {
		t.Errorf("A writes a card directly: %v", err)
	}
	if _, err := f.try(f.a, `insert into public.grile_attempts (user_id, question_id, chosen, is_correct) values (auth.uid(), $1, '{a}', true)`, q[1]); sqlState(err) != "42501" {
		t.Errorf("A writes an attempt directly: %v", err)
	}
	// B cannot act on A's exam.
	mustState(t, f.examAnswer(f.b, exam, q[0], []string{"a"}), "PT404")
	for _, fn := range []string{"grile_exam_finish", "grile_exam_review"} {
		err := f.as(f.b, func(tx pgx.Tx) error {
			_, err := tx.Exec(f.ctx, `select * from public.`+fn+`($1)`, exam)
			return err
		})
		mustState(t, err, "PT404")
	}
	// B's practice set and progress are B's: A's card does not make anything due for B.
	var due int
	_ = f.as(f.b, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select count(*) from public.grile_practice_set(null, null, null, 10, now() + interval '30 days', true)`).Scan(&due)
	})
	if due != 0 {
		t.Errorf("B sees %d due questions from A's schedule", due)
	}
	// Questions: statement and options for the signed-in, nothing for anon; no key column.
	if n, err := f.try(f.b, `select id, statement, options from public.grile_questions`); err != nil || n != 3 {
		t.Errorf("B reads questions: %d %v", n, err)
	}
	for _, col := range []string{"correct", "explanations", "citations", "*"} {
		if _, err := f.try(f.b, `select `+col+` from public.grile_questions`); sqlState(err) != "42501" {
			t.Errorf("B reads grile_questions.%s: %v", col, err)
		}
	}
	if _, err := f.try(f.anon, `select id from public.grile_questions`); sqlState(err) != "42501" {
		t.Errorf("anon reads questions: %v", err)
	}
	for _, call := range []string{`select public.grile_progress()`, `select public.grile_exam_start()`,
		`select public.grile_answer(gen_random_uuid(), '{a}', '{}', '{}')`} {
		if _, err := f.try(f.anon, call); sqlState(err) != "42501" {
			t.Errorf("anon: %s: %v", call, err)
		}
	}
	if _, err := f.try(f.b, `update public.grile_questions set correct = '{a,b,c}'`); sqlState(err) != "42501" {
		t.Errorf("B rewrites the key: %v", err)
	}
}
