package domaindb

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// exec runs one statement as the caller and commits when it succeeds.
func (f *fixture) exec(w who, sql string, args ...any) error {
	return f.as(w, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, sql, args...)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	})
}

// block records a failed AI check on a submission, as the gateway does.
func (f *fixture) block(sub string) {
	f.owner(`update public.case_submissions set ai_probability = 91, ai_decision = 'FAILED', ai_justification = 'Citează o decizie inexistentă.',
		ai_checked_at = now(), feedback_text = 'Verificarea AI: probabilitate 91%' where id = $1`, sub)
}

// The appeal of a blocked AI check (issue 15 §3): only the owner asks, only moderators and
// admins decide, every step is audited, the student reads the outcome and nobody edits a
// grade or a verdict through the data API.
func TestAppealPermissions(t *testing.T) {
	f := newFixture(t)
	f.block(f.subA)
	appealState := func() (status string, reason *string) {
		if err := f.pool.QueryRow(f.ctx, `select status, decision_reason from public.submission_appeals where submission_id = $1`, f.subA).Scan(&status, &reason); err != nil {
			t.Fatal(err)
		}
		return
	}

	// Nobody but the owner asks; a submission that passed (B's, unchecked) cannot be appealed.
	for _, w := range []who{f.b, f.mod, f.admin} {
		mustState(t, f.exec(w, `select public.request_human_review($1)`, f.subA), "PT404")
	}
	mustState(t, f.exec(f.anon, `select public.request_human_review($1)`, f.subA), "42501")
	mustState(t, f.exec(f.b, `select public.request_human_review($1)`, f.subB), "22023")
	f.owner(`update public.case_submissions set ai_probability = 12, ai_decision = 'PASSED', ai_checked_at = now() where id = $1`, f.subB)
	mustState(t, f.exec(f.b, `select public.request_human_review($1)`, f.subB), "22023")
	// Nor may anyone write the appeal or its audit directly.
	for _, w := range []who{f.a, f.b, f.mod, f.admin} {
		if _, err := f.try(w, `insert into public.submission_appeals (submission_id, user_id, case_id) values ($1, $2, $3)`, f.subA, f.a.id, f.verified); err == nil {
			t.Errorf("%s inserted an appeal directly", w.name)
		}
		if _, err := f.try(w, `insert into public.submission_appeal_audit (action) values ('release')`); err == nil {
			t.Errorf("%s wrote the appeal audit", w.name)
		}
	}
	if n := f.ownerInt(`select count(*) from public.submission_appeals`); n != 0 {
		t.Fatalf("%d appeals after refused calls", n)
	}

	// The owner asks, once.
	if err := f.exec(f.a, `select public.request_human_review($1)`, f.subA); err != nil {
		t.Fatal(err)
	}
	mustState(t, f.exec(f.a, `select public.request_human_review($1)`, f.subA), "23505")
	var appeal string
	if err := f.pool.QueryRow(f.ctx, `select id from public.submission_appeals where submission_id = $1`, f.subA).Scan(&appeal); err != nil {
		t.Fatal(err)
	}
	// The text under appeal is frozen for the student.
	mustState(t, f.exec(f.a, `update public.case_submissions set submission_text = 'alt text' where id = $1`, f.subA), "42501")

	// The student sees their appeal, B does not; only moderators and admins see the queue.
	if n, err := f.try(f.a, `select * from public.submission_appeals`); err != nil || n != 1 {
		t.Fatalf("A reads own appeal: %d %v", n, err)
	}
	if n, err := f.try(f.b, `select * from public.submission_appeals`); err != nil || n != 0 {
		t.Fatalf("B reads A's appeal: %d %v", n, err)
	}
	for _, w := range []who{f.a, f.b} {
		mustState(t, f.exec(w, `select * from public.appeal_queue()`), "42501")
		mustState(t, f.exec(w, `select public.appeal_release($1)`, appeal), "42501")
		mustState(t, f.exec(w, `select public.appeal_confirm_block($1, 'nu')`, appeal), "42501")
		// Students do not read the audit.
		if n, err := f.try(w, `select * from public.submission_appeal_audit`); err != nil || n != 0 {
			t.Fatalf("%s reads the audit: %d %v", w.name, n, err)
		}
	}
	if s, _ := appealState(); s != "pending" {
		t.Fatalf("after students' calls: %s", s)
	}
	for _, w := range []who{f.mod, f.admin} {
		var text, justification string
		if err := f.scalar(w, &text, `select submission_text || '|' || ai_justification from public.appeal_queue() where id = $1`, appeal); err != nil {
			t.Fatalf("%s queue: %v", w.name, err)
		}
		justification = text[strings.Index(text, "|")+1:]
		if !strings.HasPrefix(text, "soluția A|") || justification != "Citează o decizie inexistentă." {
			t.Fatalf("%s queue row: %q", w.name, text)
		}
	}

	// Confirming needs a reason; then the appeal is decided for good.
	mustState(t, f.exec(f.mod, `select public.appeal_confirm_block($1, '  ')`, appeal), "22023")
	if err := f.exec(f.mod, `select public.appeal_release($1)`, appeal); err != nil {
		t.Fatal(err)
	}
	mustState(t, f.exec(f.admin, `select public.appeal_confirm_block($1, 'prea târziu')`, appeal), "22023")
	if s, r := appealState(); s != "released" || r != nil {
		t.Fatalf("after release: %s %v", s, r)
	}
	var decision string
	if err := f.pool.QueryRow(f.ctx, `select ai_decision from public.case_submissions where id = $1`, f.subA).Scan(&decision); err != nil || decision != "RELEASED" {
		t.Fatalf("submission decision: %q %v", decision, err)
	}
	if n := f.ownerInt(`select count(*) from public.submission_appeal_audit where appeal_id = $1 and action = 'request' and actor_id = $2`, appeal, f.a.id); n != 1 {
		t.Fatalf("request audit rows: %d", n)
	}
	if n := f.ownerInt(`select count(*) from public.submission_appeal_audit where appeal_id = $1 and action = 'release' and actor_id = $2`, appeal, f.mod.id); n != 1 {
		t.Fatalf("release audit rows: %d", n)
	}
	if n, err := f.try(f.mod, `select * from public.submission_appeal_audit`); err != nil || n != 2 {
		t.Fatalf("moderator reads the audit: %d %v", n, err)
	}

	// A second blocked submission: the block is confirmed with a reason the student reads.
	second := f.ownerID(`insert into public.case_submissions (user_id, case_id, submission_text) values ($1, $2, 'al doilea text') returning id`, f.a.id, f.verified)
	f.block(second)
	if err := f.exec(f.a, `select public.request_human_review($1)`, second); err != nil {
		t.Fatal(err)
	}
	var appeal2 string
	if err := f.pool.QueryRow(f.ctx, `select id from public.submission_appeals where submission_id = $1`, second).Scan(&appeal2); err != nil {
		t.Fatal(err)
	}
	if err := f.exec(f.admin, `select public.appeal_confirm_block($1, ' Textul reproduce un model generat. ')`, appeal2); err != nil {
		t.Fatal(err)
	}
	var reason string
	if err := f.scalar(f.a, &reason, `select status || ':' || decision_reason from public.submission_appeals where id = $1`, appeal2); err != nil || reason != "confirmed:Textul reproduce un model generat." {
		t.Fatalf("student reads the outcome: %q %v", reason, err)
	}
	if err := f.pool.QueryRow(f.ctx, `select ai_decision from public.case_submissions where id = $1`, second).Scan(&decision); err != nil || decision != "FAILED" {
		t.Fatalf("a confirmed block changed the decision: %q %v", decision, err)
	}
}

// Nobody edits a grade, a verdict or an appeal's outcome through the data API: not the
// owner, not another student, not a moderator or an admin (they decide through RPCs only).
func TestNobodyEditsAGradeByREST(t *testing.T) {
	f := newFixture(t)
	f.owner(`update public.case_submissions set score = '40/100', score_value = 40, status = 'graded', feedback_at = now(), feedback_text = 'slab' where id = $1`, f.subA)
	writes := []string{
		`update public.case_submissions set score = '99/100' where id = $1`,
		`update public.case_submissions set score_value = 99 where id = $1`,
		`update public.case_submissions set status = 'submitted' where id = $1`,
		`update public.case_submissions set feedback_text = 'excelent' where id = $1`,
		`update public.case_submissions set score_breakdown = '[]' where id = $1`,
		`update public.case_submissions set ai_decision = 'RELEASED' where id = $1`,
		`update public.case_submissions set submission_text = 'alt text' where id = $1`,
		`delete from public.case_submissions where id = $1`,
	}
	for _, w := range []who{f.anon, f.a, f.b, f.mod, f.admin} {
		for _, sql := range writes {
			if n, err := f.try(w, sql, f.subA); err == nil && n > 0 {
				t.Errorf("%s: %s changed %d rows", w.name, sql, n)
			}
		}
	}
	var score string
	if err := f.pool.QueryRow(f.ctx, `select score || ' ' || status || ' ' || submission_text from public.case_submissions where id = $1`, f.subA).Scan(&score); err != nil || score != "40/100 graded soluția A" {
		t.Fatalf("after the attempts: %q %v", score, err)
	}
	// A new submission cannot carry a grade or a verdict either.
	for _, col := range []string{"score", "ai_decision", "score_breakdown"} {
		val := map[string]string{"score": "'99/100'", "ai_decision": "'RELEASED'", "score_breakdown": "'[]'"}[col]
		if _, err := f.try(f.a, `insert into public.case_submissions (user_id, case_id, submission_text, `+col+`) values ($1, $2, 'x', `+val+`)`, f.a.id, f.verified); err == nil {
			t.Errorf("A inserted a submission with %s", col)
		}
	}
}

// Revise and resubmit: a new submission may name a graded submission of the same student
// on the same case, nothing else.
func TestPreviousSubmission(t *testing.T) {
	f := newFixture(t)
	insert := `insert into public.case_submissions (user_id, case_id, submission_text, previous_submission_id) values ($1, $2, 'revizuit', $3)`
	// Not yet graded.
	mustState(t, f.exec(f.a, insert, f.a.id, f.verified, f.subA), "23514")
	f.owner(`update public.case_submissions set score = '40/100', score_value = 40, status = 'graded', feedback_at = now() where id in ($1, $2)`, f.subA, f.subB)
	// Someone else's, or another case.
	mustState(t, f.exec(f.a, insert, f.a.id, f.verified, f.subB), "23514")
	mustState(t, f.exec(f.a, insert, f.a.id, f.generated, f.subA), "23514")
	if err := f.exec(f.a, insert, f.a.id, f.verified, f.subA); err != nil {
		t.Fatal(err)
	}
	if n := f.ownerInt(`select count(*) from public.case_submissions where previous_submission_id = $1 and user_id = $2`, f.subA, f.a.id); n != 1 {
		t.Fatalf("linked submissions: %d", n)
	}
}

// Process signals: the owner writes them once, before the AI check; only moderators and
// admins read them (not even the owner).
func TestProcessSignals(t *testing.T) {
	f := newFixture(t)
	insert := `insert into public.submission_process_signals (submission_id, user_id, chars_typed, chars_pasted, paste_events, largest_paste, ms_to_submit)
		values ($1, $2, 120, 400, 2, 300, 95000)`
	mustState(t, f.exec(f.b, insert, f.subA, f.b.id), "42501")
	mustState(t, f.exec(f.b, insert, f.subA, f.a.id), "42501")
	mustState(t, f.exec(f.anon, insert, f.subA, f.a.id), "42501")
	mustState(t, f.exec(f.a, `insert into public.submission_process_signals (submission_id, user_id, chars_typed, chars_pasted, paste_events, largest_paste)
		values ($1, $2, 1, 10, 1, 11)`, f.subA, f.a.id), "23514")
	if err := f.exec(f.a, insert, f.subA, f.a.id); err != nil {
		t.Fatal(err)
	}
	if _, err := f.try(f.a, insert, f.subA, f.a.id); err == nil {
		t.Fatal("a second row for the same submission")
	}
	for _, w := range []who{f.a, f.b} {
		if n, err := f.try(w, `select * from public.submission_process_signals`); err != nil || n != 0 {
			t.Fatalf("%s reads signals: %d %v", w.name, n, err)
		}
		if n, err := f.try(w, `update public.submission_process_signals set chars_pasted = 0`); err == nil && n > 0 {
			t.Fatalf("%s updated signals", w.name)
		}
	}
	for _, w := range []who{f.mod, f.admin} {
		var pasted int
		if err := f.scalar(w, &pasted, `select chars_pasted from public.submission_process_signals where submission_id = $1`, f.subA); err != nil || pasted != 400 {
			t.Fatalf("%s reads signals: %d %v", w.name, pasted, err)
		}
	}
	// After the AI check, signals can no longer be added.
	f.block(f.subB)
	mustState(t, f.exec(f.b, insert, f.subB, f.b.id), "42501")
}

// The model answer in the review screen: review_update_case (moderators only) stores it
// with the rest of the edit and records it in the edit's audit row; students never read it.
func TestReviewModelAnswer(t *testing.T) {
	f := newFixture(t)
	f.owner(`insert into public.case_model_answers (case_id, model_answer) values ($1, 'Răspuns model inițial')`, f.generated)
	answer := func() string {
		var s string
		if err := f.pool.QueryRow(f.ctx, `select coalesce((select model_answer from public.case_model_answers where case_id = $1), '<none>')`, f.generated).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, w := range []who{f.a, f.b} {
		if n, err := f.try(w, `select * from public.case_model_answers`); err == nil {
			t.Fatalf("%s reads case_model_answers: %d rows", w.name, n)
		}
	}
	edit := `{"case_code": "PEN2BBB", "title": "Titlu", "legal_problem": "P", "case_description": "D", "question": "Q?",
		"articles": [], "analysis_steps": ["Pas"], "hints": ["Indiciu"], "model_answer": " Premisa majoră: art. 228 C.pen. "}`
	// The author (a student) cannot reach the renamed field update or the wrapper.
	mustState(t, f.exec(f.a, `select public.review_update_case($1, $2::jsonb)`, f.generated, edit), "42501")
	mustState(t, f.exec(f.a, `select public.review_update_case_fields($1, $2::jsonb)`, f.generated, edit), "42501")
	if got := answer(); got != "Răspuns model inițial" {
		t.Fatalf("after a student's call: %q", got)
	}
	if err := f.exec(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, edit); err != nil {
		t.Fatal(err)
	}
	if got := answer(); got != "Premisa majoră: art. 228 C.pen." {
		t.Fatalf("after edit: %q", got)
	}
	var oldA, newA string
	if err := f.pool.QueryRow(f.ctx, `select old_values ->> 'model_answer', new_values ->> 'model_answer' from public.case_audit
		where case_id = $1 and action = 'edit'`, f.generated).Scan(&oldA, &newA); err != nil || oldA != "Răspuns model inițial" || newA != "Premisa majoră: art. 228 C.pen." {
		t.Fatalf("audit: %q %q %v", oldA, newA, err)
	}
	// Without the key the model answer is left alone; a validation error stores nothing.
	if err := f.exec(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, strings.Replace(edit, `, "model_answer": " Premisa majoră: art. 228 C.pen. "`, "", 1)); err != nil {
		t.Fatal(err)
	}
	if got := answer(); got != "Premisa majoră: art. 228 C.pen." {
		t.Fatalf("without the key: %q", got)
	}
	mustState(t, f.exec(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, strings.Replace(edit, `"title": "Titlu"`, `"title": ""`, 1)), "23514")
	if got := answer(); got != "Premisa majoră: art. 228 C.pen." {
		t.Fatalf("after a refused edit: %q", got)
	}
}
