package domaindb

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A generated case's model answer is stored by save_generated_case in the same call;
// editors (the author of an unverified case, moderators) read and replace it through
// RPCs; other students reach it by no route, and the grading state is the grader's.
func TestModelAnswerOfGeneratedCases(t *testing.T) {
	f := newFixture(t)
	payload := `{"case_code": "CIV4MOD", "title": "Caz: Model", "legal_problem": "Problema", "case_description": "Descriere", "question": "Întrebare?",
		"subcategory": "Vânzarea", "analysis_steps": ["Pas"], "hints": ["Indiciu"],
		"model_answer": "  Introducere. Problema: este valabilă vânzarea?\n\nConcluzie. Da.  "}`
	var id string
	if err := f.scalar(f.a, &id, `select public.save_generated_case($1::jsonb)`, payload); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := f.pool.QueryRow(f.ctx, `select model_answer from public.case_model_answers where case_id = $1`, id).Scan(&stored); err != nil ||
		stored != "Introducere. Problema: este valabilă vânzarea?\n\nConcluzie. Da." {
		t.Fatalf("stored %q %v", stored, err)
	}
	// Without one, nothing is stored.
	var bare string
	if err := f.scalar(f.a, &bare, `select public.save_generated_case($1::jsonb)`, strings.Replace(strings.Replace(payload, "CIV4MOD", "CIV4BAR", 1), `"model_answer"`, `"other"`, 1)); err != nil {
		t.Fatal(err)
	}
	if n := f.ownerInt(`select count(*) from public.case_model_answers where case_id = $1`, bare); n != 0 {
		t.Fatalf("%d model answers for a case saved without one", n)
	}
	// The author and a moderator read and replace it; B and anon cannot.
	var got string
	if err := f.scalar(f.a, &got, `select public.case_model_answer($1)`, id); err != nil || got != stored {
		t.Fatalf("author reads %q %v", got, err)
	}
	if err := f.as(f.mod, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.set_case_model_answer($1, 'Răspuns revizuit de moderator.')`, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.scalar(f.mod, &got, `select public.case_model_answer($1)`, id); err != nil || got != "Răspuns revizuit de moderator." {
		t.Fatalf("moderator reads %q %v", got, err)
	}
	_, err := f.try(f.b, `select public.case_model_answer($1)`, id)
	mustState(t, err, "42501")
	_, err = f.try(f.b, `select public.set_case_model_answer($1, 'furat')`, id)
	mustState(t, err, "42501")
	_, err = f.try(f.anon, `select public.case_model_answer($1)`, id)
	mustState(t, err, "42501")
	_, err = f.try(f.b, `select * from public.case_model_answers`)
	mustState(t, err, "42501")
	// Once verified, the author no longer edits it (nor, then, reads it).
	f.owner(`update public.cases set verified = true where id = $1`, id)
	_, err = f.try(f.a, `select public.case_model_answer($1)`, id)
	mustState(t, err, "42501")
}

// The grading state and the grade's record are the grader's: the owner can neither claim
// a submission for grading nor write how a grade was made, and cannot edit a submission
// while it is being graded.
func TestGradingStateIsTheGraders(t *testing.T) {
	f := newFixture(t)
	for _, sql := range []string{
		`update public.case_submissions set status = 'grading' where id = $1`,
		`update public.case_submissions set grade_reference_used = true where id = $1`,
		`update public.case_submissions set grade_prompt_version = 'x', grade_model = 'y' where id = $1`,
	} {
		_, err := f.try(f.a, sql, f.subA)
		mustState(t, err, "42501")
	}
	f.owner(`update public.case_submissions set status = 'grading', grading_started_at = now() where id = $1`, f.subA)
	// Zero rows: RLS refuses the edit of a 'grading' row.
	if n, err := f.try(f.a, `update public.case_submissions set submission_text = 'alt text' where id = $1`, f.subA); n != 0 || err != nil {
		t.Fatalf("edit while grading: %d %v", n, err)
	}
	var st string
	if err := f.scalar(f.a, &st, `select status from public.case_submissions where id = $1`, f.subA); err != nil || st != "grading" {
		t.Fatalf("owner reads %q %v", st, err)
	}
}
