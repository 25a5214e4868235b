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
