package aigw_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
)

// The grade is recorded only from a reply that reads as a full grade (a JSON object,
// fenced or after prose); a sub-item above its maximum gets one repair, and a reply that
// does not read, nor its repair, records nothing.
func TestGradeRecordedOnlyWhenItReads(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	pass := aitest.Reply{Text: `{"probability": 4, "decision": "PASSED", "justification": "ok"}`}
	fenced := "Iată evaluarea:\n```json\n" + gradeText(sum70) + "\n```"
	over := strings.Replace(gradeText(sum70), `"izvoare": 5`, `"izvoare": 25`, 1)
	cases := []struct {
		replies []string
		graded  bool
		score   string
	}{
		{[]string{fenced, fenced}, true, "70/100"},
		{[]string{"Punctaj total: 78 din 100", "PUNCTAJ TOTAL: 78/100"}, false, ""},
		{[]string{over, over}, false, ""},
		{[]string{over, gradeText(sum70), gradeText(sum70)}, true, "70/100"},
	}
	for i, c := range cases {
		sub := e.submission(userA, "Soluția numărul "+string(rune('A'+i)))
		e.fake.Script(pass)
		for _, r := range c.replies {
			e.fake.Script(aitest.Reply{Text: r})
		}
		if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, map[string]any{}); st != 200 {
			t.Fatalf("%d: detect %d", i, st)
		}
		st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": sub}, map[string]any{})
		var status string
		var score *string
		var crit int
		if err := e.srv.Deps.Owner.QueryRow(context.Background(), `select status, score, coalesce(jsonb_array_length(score_breakdown), 0)
			from case_submissions where id = $1`, sub).Scan(&status, &score, &crit); err != nil {
			t.Fatal(err)
		}
		if (status == "graded") != c.graded || (st == 200) != c.graded || (c.graded && (*score != c.score || crit != 10)) || (!c.graded && (score != nil || status != "submitted")) {
			t.Fatalf("%d: %d, status %s score %v criteria %d", i, st, status, score, crit)
		}
	}
}

// Asking again cannot turn a failed check into a pass, nor re-roll a grade: a repeated
// call answers the recorded result without calling the model.
func TestOneCheckAndOneGradePerSubmission(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	failed := e.submission(userA, "### Text verificat o dată")
	e.fake.Script(aitest.Reply{Text: `{"indicii": [{"tip": "B", "citat": "### Text verificat"}], "decision": "FAILED", "justification": "titlu markdown"}`})
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": failed}, map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	n := len(e.fake.Requests())
	st, out := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": failed}, map[string]any{})
	var again struct {
		Probability float64
		Decision    string
	}
	if err := json.Unmarshal([]byte(text(out)), &again); err != nil || st != 200 || again.Decision != "FAILED" || again.Probability != 85 || len(e.fake.Requests()) != n {
		t.Fatalf("second check: %d %v", st, out)
	}
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": failed}, map[string]any{}); st != 403 {
		t.Fatalf("graded after a repeated check: %d", st)
	}
	if got := e.state(failed); got != "blocked" {
		t.Fatalf("a submission the check blocked reads %q on My Progress, want blocked", got)
	}
	graded := e.submission(userA, "Text notat o dată")
	e.fake.Script(aitest.Reply{Text: `{"probability": 3, "decision": "PASSED", "justification": "ok"}`})
	e.fake.Script(twoPasses(sum70)...)
	e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": graded}, map[string]any{})
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": graded}, map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	n = len(e.fake.Requests())
	if st, out := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": graded}, map[string]any{}); st != 200 || !strings.Contains(text(out), "PUNCTAJ TOTAL: 70/100") || len(e.fake.Requests()) != n {
		t.Fatalf("second grade: %d %v", st, out)
	}
	var score string
	e.srv.Deps.Owner.QueryRow(context.Background(), "select score from case_submissions where id = $1", graded).Scan(&score)
	if score != "70/100" {
		t.Fatalf("grade changed to %s", score)
	}
}

// A student who passed the check and then swaps the text (an update the data API
// allows before grading) must pass a fresh check before the new text is graded.
func TestEditedTextNeedsAFreshCheck(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "Textul meu, scris de mine")
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	ctx := context.Background()
	tx, err := e.srv.Deps.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `set local role authenticated;
		select set_config('request.jwt.claims', '{"sub":"`+userA+`","role":"authenticated"}', true);`)
	if err == nil {
		_, err = tx.Exec(ctx, "update case_submissions set submission_text = 'Text generat de un model' where id = $1", sub)
	}
	if err == nil {
		err = tx.Commit(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st, out := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": sub}, map[string]any{}); st != 403 || errType(out) != "permission_error" {
		t.Fatalf("graded the swapped text without a check: %d %v", st, out)
	}
	e.fake.Script(aitest.Reply{Text: `{"indicii": [{"tip": "A", "citat": "generat de un model"}], "decision": "FAILED", "justification": "tipar de model"}`})
	n := len(e.fake.Requests())
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, map[string]any{}); st != 200 || len(e.fake.Requests()) != n+1 {
		t.Fatalf("fresh check: %d", st)
	}
	if um, _ := json.Marshal(e.fake.Requests()[n]["messages"]); !strings.Contains(string(um), "Text generat de un model") {
		t.Fatalf("checked %s", um)
	}
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": sub}, map[string]any{}); st != 403 {
		t.Fatalf("graded after a failed fresh check: %d", st)
	}
}
