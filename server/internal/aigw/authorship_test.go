package aigw_test

import (
	"context"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
)

// The verdict belongs to the student, the case and the text up to trivial edits: a new
// submission of the same text with one character added, or without diacritics, gets the
// stored FAILED without a model call, so a blocked student cannot re-roll the check.
// Another student's identical text is judged on its own.
func TestVerdictCannotBeReRolled(t *testing.T) {
	e := start(t, nil)
	a, b := e.token(userA), e.token(userB)
	const original = "Sigur! Iată o soluție: Ion răspunde în temeiul art. 1357 C.civ., fapta fiind ilicită."
	first := e.submission(userA, original)
	e.fake.Script(aitest.Reply{Text: `{"indicii": [{"tip": "A", "citat": "Sigur! Iată o soluție"}], "probability": 85, "decision": "FAILED", "justification": "formulă"}`})
	if st, _ := e.call(a, hdr("detect", first), map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	if got := e.decision(first); got != "FAILED" {
		t.Fatalf("first check %s", got)
	}
	// The student reads the quoted reasons, not a pseudo-precise percentage.
	if _, _, f := e.row(first); f == nil || !strings.Contains(*f, "„Sigur! Iată o soluție” (formulă de asistent conversațional)") || strings.Contains(*f, "%") {
		t.Errorf("blocked feedback: %v", f)
	}
	for _, edited := range []string{
		original + ".",
		original + " ",
		strings.Replace(original, "Ion", "ion", 1),
		"Sigur! Iata o solutie: Ion raspunde in temeiul art. 1357 C.civ., fapta fiind ilicita.",
		strings.Replace(original, ", fapta", " fapta", 1),
	} {
		sub := e.submission(userA, edited)
		// Were the model asked, it would pass the text.
		e.fake.Script(aitest.Reply{Text: `{"indicii": [], "probability": 5, "decision": "PASSED", "justification": "niciun indiciu"}`})
		n := len(e.fake.Requests())
		if st, _ := e.call(a, hdr("detect", sub), map[string]any{}); st != 200 {
			t.Fatal(st)
		}
		if got := e.decision(sub); got != "FAILED" || len(e.fake.Requests()) != n {
			t.Fatalf("%q re-rolled: %s after %d model calls", edited, got, len(e.fake.Requests())-n)
		}
		if st, _ := e.call(a, hdr("grade", sub), map[string]any{}); st != 403 {
			t.Fatalf("%q graded: %d", edited, st)
		}
		e.fake.Reset()
	}
	// Another student is judged on their own.
	other := e.submission(userB, original)
	e.fake.Script(aitest.Reply{Text: `{"indicii": [], "probability": 5, "decision": "PASSED", "justification": "niciun indiciu"}`})
	if st, _ := e.call(b, hdr("detect", other), map[string]any{}); st != 200 || e.decision(other) != "PASSED" || len(e.fake.Requests()) != 1 {
		t.Fatalf("another student's text: %d %s", st, e.decision(other))
	}
	// A moderator's release of the text overrules the stored FAILED for that text.
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), "update case_submissions set ai_decision = 'RELEASED' where id = $1", first); err != nil {
		t.Fatal(err)
	}
	again := e.submission(userA, original+"!")
	n := len(e.fake.Requests())
	if st, _ := e.call(a, hdr("detect", again), map[string]any{}); st != 200 || e.decision(again) != "PASSED" || len(e.fake.Requests()) != n {
		t.Fatalf("after a release: %d %s", st, e.decision(again))
	}
}

func (e *env) decision(sub string) string {
	e.t.Helper()
	var d *string
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), "select ai_decision from case_submissions where id = $1", sub).Scan(&d); err != nil {
		e.t.Fatal(err)
	}
	if d == nil {
		return ""
	}
	return *d
}

// One grade per student, case, text up to trivial edits, strictness, prompt version and
// model (grader-review-3 §6 item 12): sending the same solution again records the grade
// already given, without the model, so a middling text cannot be re-rolled across the
// 50-point line. Another strictness is another grading; so is another student.
func TestGradeCannotBeReRolled(t *testing.T) {
	e := start(t, nil)
	a, b := e.token(userA), e.token(userB)
	const original = "Ion răspunde pentru fapta proprie: a spart geamul cu vinovăție, deci datorează despăgubiri (art. 1357 C.civ.)."
	submit := func(owner, tok, text string, level int, scores [10]int) (sub string, calls int) {
		t.Helper()
		if err := e.srv.Deps.Owner.QueryRow(context.Background(), `insert into case_submissions (user_id, case_id, submission_text, difficulty_rating)
			values ($1, $2, $3, $4) returning id`, owner, caseID, text, level).Scan(&sub); err != nil {
			t.Fatal(err)
		}
		e.fake.Reset()
		e.fake.Script(passed) // unused when the text already has a verdict
		e.call(tok, hdr("detect", sub), map[string]any{})
		e.fake.Reset()
		e.fake.Script(twoPasses(scores)...)
		if st, out := e.call(tok, hdr("grade", sub), map[string]any{}); st != 200 {
			t.Fatalf("%q: grade %d %v", text, st, out)
		}
		return sub, len(e.fake.Requests())
	}
	first, calls := submit(userA, a, original, 3, sum70)
	if calls != 2 {
		t.Fatalf("first grade: %d model calls", calls)
	}
	_, score, feedback := e.row(first)
	sum90 := [10]int{5, 7, 5, 6, 9, 5, 9, 18, 13, 13}
	for _, edited := range []string{original, original + " ", strings.ToUpper(original[:1]) + original[1:] + "!",
		"Ion raspunde pentru fapta proprie: a spart geamul cu vinovatie, deci datoreaza despagubiri (art. 1357 C.civ.)"} {
		sub, calls := submit(userA, a, edited, 3, sum90)
		status, s, f := e.row(sub)
		if calls != 0 || status != "graded" || *s != *score || *f != *feedback {
			t.Errorf("%q re-graded: %d model calls, %s %v", edited, calls, status, *s)
		}
		var passes, version string
		if err := e.srv.Deps.Owner.QueryRow(context.Background(), "select grade_passes::text, grade_prompt_version from case_submissions where id = $1", sub).Scan(&passes, &version); err != nil || passes == "" || version == "" {
			t.Errorf("the copied grade lacks its record: %v %q %q", err, passes, version)
		}
	}
	// Another strictness, another text, another student: graded by the model.
	for _, c := range []struct {
		owner, tok, text string
		level            int
	}{{userA, a, original, 5}, {userA, a, original + " Vasile poate cere și dobânzi.", 3}, {userB, b, original, 3}} {
		sub, calls := submit(c.owner, c.tok, c.text, c.level, sum90)
		if _, s, _ := e.row(sub); calls != 2 || *s != "90/100" {
			t.Errorf("%s level %d %q: %d model calls, %s", c.owner, c.level, c.text, calls, *s)
		}
	}
}
