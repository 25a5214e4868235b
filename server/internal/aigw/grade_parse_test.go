package aigw_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
)

// The score is recorded only when the reply carries exactly one well-formed total;
// criterion lines that do not match the rubric's maxima are dropped.
func TestGradeRecordedOnlyWhenTotalParses(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	pass := aitest.Reply{Text: `{"probability": 4, "decision": "PASSED", "justification": "ok"}`}
	cases := []struct {
		reply  string
		graded bool
		score  string
		crit   int
	}{
		{"PUNCTAJ TOTAL: 78/100", true, "78/100", 0},
		{"Punctaj total: 78 din 100", false, "", 0},
		{"PUNCTAJ TOTAL: 130/100", false, "", 0},
		{"Studentul a scris „PUNCTAJ TOTAL: 100/100”.\nPUNCTAJ TOTAL: 40/100", false, "", 0},
		{"1.1: 5/5\n2.2.1 Premisa majoră: 25/20 – prea mult\n2.2.2 Premisa minoră: 9/20\n**2.2.3 Concluzia:** 7/15\nPUNCTAJ TOTAL: 21/100", true, "21/100", 2},
	}
	for i, c := range cases {
		sub := e.submission(userA, "Soluția numărul "+string(rune('A'+i)))
		e.fake.Script(pass, aitest.Reply{Text: c.reply})
		if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, map[string]any{}); st != 200 {
			t.Fatalf("%d: detect %d", i, st)
		}
		if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": sub}, map[string]any{}); st != 200 {
			t.Fatalf("%d: grade %d", i, st)
		}
		var status string
		var score *string
		var crit int
		if err := e.srv.Deps.Owner.QueryRow(context.Background(), `select status, score, coalesce((select count(*) from jsonb_object_keys(score_breakdown->'criteria')), 0)
			from case_submissions where id = $1`, sub).Scan(&status, &score, &crit); err != nil {
			t.Fatal(err)
		}
		if (status == "graded") != c.graded || (c.graded && (*score != c.score || crit != c.crit)) || (!c.graded && score != nil) {
			t.Fatalf("%d %q: status %s score %v criteria %d", i, c.reply, status, score, crit)
		}
	}
}

// Asking again cannot turn a failed check into a pass, nor re-roll a grade: a repeated
// call answers the recorded result without calling the model.
func TestOneCheckAndOneGradePerSubmission(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	failed := e.submission(userA, "Text verificat o dată")
	e.fake.Script(aitest.Reply{Text: `{"probability": 80, "decision": "FAILED", "justification": "tipar de model"}`})
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": failed}, map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	n := len(e.fake.Requests())
	st, out := e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": failed}, map[string]any{})
	var again struct {
		Probability float64
		Decision    string
	}
	if err := json.Unmarshal([]byte(text(out)), &again); err != nil || st != 200 || again.Decision != "FAILED" || again.Probability != 80 || len(e.fake.Requests()) != n {
		t.Fatalf("second check: %d %v", st, out)
	}
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": failed}, map[string]any{}); st != 403 {
		t.Fatalf("graded after a repeated check: %d", st)
	}
	graded := e.submission(userA, "Text notat o dată")
	e.fake.Script(aitest.Reply{Text: `{"probability": 3, "decision": "PASSED", "justification": "ok"}`}, aitest.Reply{Text: "Bine.\nPUNCTAJ TOTAL: 61/100"})
	e.call(a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": graded}, map[string]any{})
	if st, _ := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": graded}, map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	n = len(e.fake.Requests())
	if st, out := e.call(a, map[string]string{"X-Casus-Task": "grade", "X-Casus-Submission": graded}, map[string]any{}); st != 200 || text(out) != "Bine.\nPUNCTAJ TOTAL: 61/100" || len(e.fake.Requests()) != n {
		t.Fatalf("second grade: %d %v", st, out)
	}
	var score string
	e.srv.Deps.Owner.QueryRow(context.Background(), "select score from case_submissions where id = $1", graded).Scan(&score)
	if score != "61/100" {
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
	e.fake.Script(aitest.Reply{Text: `{"probability": 91, "decision": "FAILED", "justification": "tipar de model"}`})
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
