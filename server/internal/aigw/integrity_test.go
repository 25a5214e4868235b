package aigw_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/config"
)

// gradeText is a grader's well-formed reply scoring the ten items as given.
func gradeText(scores [10]int) string { return aitest.GradeJSON(1, scores) }

// graded is one grading as the fake answers it: two agreeing passes.
func twoPasses(scores [10]int) []aitest.Reply {
	return []aitest.Reply{{Text: gradeText(scores)}, {Text: gradeText(scores)}}
}

// isGradeCall tells a grading request by its prompt's answer format.
func isGradeCall(r map[string]any) bool {
	s, _ := r["system"].(string)
	return strings.Contains(s, `"itemi"`)
}

// sum70 are ten scores adding up to 70.
var sum70 = [10]int{4, 6, 4, 5, 7, 4, 7, 14, 10, 9}

var passed = aitest.Reply{Text: `{"probability": 5, "decision": "PASSED", "justification": "ok"}`}

func (e *env) row(sub string) (status string, score *string, feedback *string) {
	e.t.Helper()
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), "select status, score, feedback_text from case_submissions where id = $1", sub).Scan(&status, &score, &feedback); err != nil {
		e.t.Fatal(err)
	}
	return
}

// asStudent runs one statement as the authenticated student, as the data API would.
func (e *env) asStudent(uid, sql string, args ...any) int64 {
	e.t.Helper()
	ctx := context.Background()
	tx, err := e.srv.Deps.Owner.Begin(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `set local role authenticated; select set_config('request.jwt.claims', '{"sub":"`+uid+`","role":"authenticated"}', true)`); err != nil {
		e.t.Fatal(err)
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		e.t.Fatal(err)
	}
	return tag.RowsAffected()
}

// waitRequests waits until the fake has received n requests.
func (e *env) waitRequests(n int) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(e.fake.Requests()) < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("the fake received %d requests, want %d", len(e.fake.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func hdr(task, sub string) map[string]string {
	return map[string]string{"X-Casus-Task": task, "X-Casus-Submission": sub}
}

// Attack: start the check on a human text with a slow upstream, swap the text for an
// AI text while it runs, then grade. The PASSED verdict must not land on the new text.
func TestDetectionVerdictOnlyForTheJudgedText(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "Textul meu, scris de mine.")
	e.fake.Script(aitest.Reply{Text: `{"probability": 5, "decision": "PASSED", "justification": "stil personal"}`, DelayMS: 300})
	done := make(chan int)
	go func() { st, _ := e.call(a, hdr("detect", sub), map[string]any{}); done <- st }()
	e.waitRequests(1)
	if n := e.asStudent(userA, "update case_submissions set submission_text = 'Text generat de un model AI.' where id = $1", sub); n != 1 {
		t.Fatalf("the swap was refused (%d rows): the attack needs it to pass", n)
	}
	if st := <-done; st == 200 {
		t.Fatalf("the check of the old text answered 200 after the text changed")
	}
	var decision *string
	e.srv.Deps.Owner.QueryRow(context.Background(), "select ai_decision from case_submissions where id = $1", sub).Scan(&decision)
	if decision != nil {
		t.Fatalf("verdict %s recorded on the swapped text", *decision)
	}
	if st, _ := e.call(a, hdr("grade", sub), map[string]any{}); st != 403 {
		t.Fatalf("the swapped text was graded: %d", st)
	}
}

// Attack: swap the text while the grade is in flight. The text is frozen while grading,
// and the grade lands on the text that was graded.
func TestGradeOnlyForTheGradedText(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "Soluția trimisă la evaluare.")
	e.fake.Script(passed, aitest.Reply{Text: gradeText(sum70), DelayMS: 300}, aitest.Reply{Text: gradeText(sum70), DelayMS: 300})
	e.call(a, hdr("detect", sub), map[string]any{})
	done := make(chan int)
	go func() { st, _ := e.call(a, hdr("grade", sub), map[string]any{}); done <- st }()
	e.waitRequests(2)
	n := e.asStudent(userA, "update case_submissions set submission_text = 'Alt text, mai bun.' where id = $1", sub)
	if st := <-done; st != 200 {
		t.Fatalf("grade: %d", st)
	}
	var text string
	var score string
	e.srv.Deps.Owner.QueryRow(context.Background(), "select submission_text, score from case_submissions where id = $1", sub).Scan(&text, &score)
	if n != 0 || text != "Soluția trimisă la evaluare." || score != "70/100" {
		t.Fatalf("edit during grading: %d rows, text %q, score %s", n, text, score)
	}
}

// Attack: fire three grade calls at once hoping to keep the best. Exactly one model call
// is made and one grade recorded.
func TestConcurrentGradesRecordOnce(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "O soluție notată o singură dată.")
	e.fake.Script(passed)
	e.call(a, hdr("detect", sub), map[string]any{})
	e.fake.Script(aitest.Reply{Text: gradeText(sum70), DelayMS: 200}, aitest.Reply{Text: gradeText(sum70), DelayMS: 200},
		aitest.Reply{Text: gradeText([10]int{5, 8, 5, 7, 10, 5, 10, 20, 15, 15}), DelayMS: 200},
		aitest.Reply{Text: gradeText([10]int{5, 8, 5, 7, 10, 5, 10, 20, 15, 14}), DelayMS: 200})
	var wg sync.WaitGroup
	status := make([]int, 3)
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); status[i], _ = e.call(a, hdr("grade", sub), map[string]any{}) }()
	}
	wg.Wait()
	gradeCalls := 0
	for _, r := range e.fake.Requests() {
		if isGradeCall(r) {
			gradeCalls++
		}
	}
	_, score, _ := e.row(sub)
	if gradeCalls != 2 || score == nil || *score != "70/100" {
		t.Fatalf("%d grade calls, score %v, statuses %v", gradeCalls, score, status)
	}
	// Later calls answer the recorded grade (one grading: its two passes).
	if st, out := e.call(a, hdr("grade", sub), map[string]any{}); st != 200 || !strings.Contains(text(out), "PUNCTAJ TOTAL: 70/100") {
		t.Fatalf("after: %d %v", st, out)
	}
}

// Attack on the parser: replies that are not a full grade (not JSON, an item missing, a
// sub-item above its maximum or not whole, a problem the case does not have, an item
// twice) are never recorded, even when the repair is just as broken.
func TestAnchoredParsers(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	good := gradeText(sum70)
	for i, reply := range []string{
		"I. OPERAȚIUNI INTELECTUALE\n1.1 Citirea: 5/5\nPUNCTAJ TOTAL: 100/100",
		strings.Replace(good, `{"cod": "1.3",`, `{"cod": "9.9",`, 1),
		strings.Replace(good, `"izvoare": 5`, `"izvoare": 25`, 1),
		strings.Replace(good, `"izvoare": 5`, `"izvoare": 4.5`, 1),
		strings.Replace(good, `"cod": "2.2.1", "problema": 1`, `"cod": "2.2.1", "problema": 2`, 1),
		strings.Replace(good, `{"cod": "1.3",`, `{"cod": "1.2", "puncte": {"punctaj": 8}}, {"cod": "1.3",`, 1),
	} {
		sub := e.submission(userA, fmt.Sprintf("Soluția %d", i))
		e.fake.Script(passed, aitest.Reply{Text: reply}, aitest.Reply{Text: reply})
		e.call(a, hdr("detect", sub), map[string]any{})
		st, out := e.call(a, hdr("grade", sub), map[string]any{})
		status, score, _ := e.row(sub)
		if st != 502 || errType(out) != "api_error" || status != "submitted" || score != nil {
			t.Fatalf("%d: %d %v, recorded %s %v", i, st, out, status, score)
		}
	}
	// The detector's number or decision alone never blocks: a FAILED at 90 with no
	// quoted artefact, or with a "quote" the student never wrote, passes.
	for i, reply := range []string{
		`{"probability": 90, "decision": "FAILED", "justification": "pare scris de AI"}`,
		`{"indicii": [{"tip": "A", "citat": "Sper că te-a ajutat!"}], "decision": "FAILED", "justification": "formulă de asistent"}`,
	} {
		sub := e.submission(userA, fmt.Sprintf("Un text verificat %d", i))
		e.fake.Script(aitest.Reply{Text: reply})
		if st, _ := e.call(a, hdr("detect", sub), map[string]any{}); st != 200 {
			t.Fatal(st)
		}
		var decision string
		var probability float64
		e.srv.Deps.Owner.QueryRow(context.Background(), "select ai_decision, ai_probability from case_submissions where id = $1", sub).Scan(&decision, &probability)
		if decision != "PASSED" || probability > 30 {
			t.Fatalf("%d: blocked without a quoted artefact: %s %v", i, decision, probability)
		}
	}
}

// A reply that cannot be read gets one repair call naming what is wrong; the server
// then computes the grade; a broken repair stores nothing and answers the student's
// message.
func TestUnreadableGradeRepairedOnce(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "Soluția cu un punct lipsă")
	missing := strings.Replace(gradeText(sum70), `{"cod": "1.3",`, `{"cod": "x",`, 1)
	e.fake.Script(passed, aitest.Reply{Text: missing}, aitest.Reply{Text: gradeText(sum70)}, aitest.Reply{Text: gradeText(sum70)})
	e.call(a, hdr("detect", sub), map[string]any{})
	st, out := e.call(a, hdr("grade", sub), map[string]any{})
	status, score, feedback := e.row(sub)
	if st != 200 || status != "graded" || *score != "70/100" || !strings.Contains(text(out), "Calificativ: Bine") || !strings.Contains(*feedback, "Calificativ: Bine") ||
		!strings.Contains(*feedback, "PUNCTAJ TOTAL: 70/100") {
		t.Fatalf("%d %v, recorded %s %v", st, out, status, score)
	}
	reqs := e.fake.Requests()
	repair, _ := json.Marshal(reqs[2]["messages"])
	if len(reqs) != 4 || !strings.Contains(string(repair), "lipsesc punctele 1.3") {
		t.Fatalf("%d requests, repair request: %s", len(reqs), repair)
	}
	var breakdown []map[string]any
	var version, model string
	var refUsed bool
	var passes []map[string]any
	e.srv.Deps.Owner.QueryRow(context.Background(), "select score_breakdown, grade_prompt_version, grade_model, grade_reference_used, grade_passes from case_submissions where id = $1", sub).
		Scan(&breakdown, &version, &model, &refUsed, &passes)
	if len(breakdown) != 10 || breakdown[0]["id"] != "1.1" || breakdown[7]["id"] != "2.2.1" || breakdown[7]["score"] != float64(14) || breakdown[7]["max"] != float64(20) ||
		breakdown[7]["label"] != "Premisa majoră" || breakdown[7]["comment"] != "premisa majoră." || version == "" || model != "claude-test" || refUsed ||
		len(passes) != 2 || passes[0]["total"] != float64(70) || passes[1]["total"] != float64(70) {
		t.Fatalf("recorded %v %s %s %v passes %v", breakdown, version, model, refUsed, passes)
	}

	broken := e.submission(userA, "Soluția cu reparația greșită")
	e.fake.Script(passed, aitest.Reply{Text: missing}, aitest.Reply{Text: missing})
	e.call(a, hdr("detect", broken), map[string]any{})
	req, _ := http.NewRequest("POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+a)
	req.Header.Set("X-Casus-Task", "grade")
	req.Header.Set("X-Casus-Submission", broken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	status, score, feedback = e.row(broken)
	var shape map[string]any
	_ = json.Unmarshal(body, &shape)
	want := map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "Evaluarea nu a putut fi finalizată. Încearcă din nou."}}
	if res.StatusCode != 502 || fmt.Sprint(shape) != fmt.Sprint(want) ||
		status != "submitted" || score != nil || feedback != nil {
		t.Fatalf("broken repair: %d %s, recorded %s %v %v", res.StatusCode, body, status, score, feedback)
	}
	// A model that states its own total is not believed: the server sums.
	short := e.submission(userA, "Soluția cu un total singur")
	e.fake.Script(passed, aitest.Reply{Text: "Bine.\nPUNCTAJ TOTAL: 61/100"}, aitest.Reply{Text: gradeText(sum70)}, aitest.Reply{Text: gradeText(sum70)})
	e.call(a, hdr("detect", short), map[string]any{})
	if st, _ := e.call(a, hdr("grade", short), map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	if _, score, _ := e.row(short); *score != "70/100" {
		t.Fatalf("short grade recorded %s", *score)
	}
}

// Quotas are reserved before the upstream call under a lock: 60 concurrent calls against
// a limit of 40 let at most 40 through; an oversized message never reaches the model.
func TestQuotaReservedAtomically(t *testing.T) {
	e := start(t, func(c *config.Config) { c.AIDailyRequests = 40 })
	a := e.token(userA)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two uses, so the race is not serialised by one usage row's lock.
			st, _ := e.call(a, map[string]string{"X-Casus-Task": []string{"classify", "generate"}[i%2]}, map[string]any{"messages": []map[string]string{{"role": "user", "content": "Speța"}}})
			if st == 200 {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n := len(e.fake.Requests()); n > 40 || ok > 40 {
		t.Fatalf("%d upstream calls, %d answered, limit 40", n, ok)
	}
	n := len(e.fake.Requests())
	big := strings.Repeat("întrebare ", 50_000) // 500 kB
	st, out := e.call(e.token(userB), map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}, map[string]any{"messages": []map[string]string{{"role": "user", "content": big}}})
	if st != 413 || errType(out) != "request_too_large" || len(e.fake.Requests()) != n {
		t.Fatalf("oversized tutor message: %d %v", st, out)
	}
}

// Provider errors reach the browser as one generic Anthropic-shaped error; what the
// provider said (here a masked key in an OpenAI 401) stays in the log.
func TestUpstreamErrorsAreGeneric(t *testing.T) {
	oa, err := aitest.StartOpenAI("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(oa.Close)
	e := start(t, func(c *config.Config) { c.AIProvider, c.OpenAIBase, c.OpenAIAPIKey = "openai", oa.URL, "sk-local" })
	oa.Script(aitest.Reply{Status: 401, Raw: `{"error":{"message":"Incorrect API key provided: sk-loc*****cal.","type":"invalid_request_error","code":"invalid_api_key"}}`})
	req, _ := http.NewRequest("POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(`{"messages": [{"role":"user","content":"x"}]}`))
	req.Header.Set("Authorization", "Bearer "+e.token(userA))
	req.Header.Set("X-Casus-Task", "classify")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 502 || strings.Contains(string(body), "sk-") || strings.Contains(string(body), "API key") || !strings.Contains(string(body), `"type":"error"`) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// A moderator's release after an appeal (ai_decision RELEASED, set by the appeal flow's
// RPC) lets a blocked submission be graded, whatever the probability.
func TestReleasedSubmissionMayBeGraded(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "[Numele reclamantului] Textul blocat pe nedrept")
	e.fake.Script(aitest.Reply{Text: `{"indicii": [{"tip": "B", "citat": "[Numele reclamantului]"}], "decision": "FAILED", "justification": "pare generat"}`})
	e.call(a, hdr("detect", sub), map[string]any{})
	if st, _ := e.call(a, hdr("grade", sub), map[string]any{}); st != 403 {
		t.Fatalf("blocked text graded: %d", st)
	}
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), "update case_submissions set ai_decision = 'RELEASED' where id = $1", sub); err != nil {
		t.Fatal(err)
	}
	e.fake.Script(twoPasses(sum70)...)
	if st, out := e.call(a, hdr("grade", sub), map[string]any{}); st != 200 || !strings.Contains(text(out), "PUNCTAJ TOTAL: 70/100") {
		t.Fatalf("released: %d %v", st, out)
	}
}

// A claim left by a server that died (its holder key is held by no session) is taken
// again at once; a claim of a live server still answers 409 until it ends.
func TestClaimOfADeadServerIsFreeAtOnce(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	ctx := context.Background()
	live := e.submission(userA, "O soluție rămasă în evaluare de un server care trăiește.")
	dead := e.submission(userA, "O soluție rămasă în evaluare de un server oprit brusc.")
	for _, sub := range []string{live, dead} {
		e.fake.Script(passed)
		e.call(a, hdr("detect", sub), map[string]any{})
	}
	// A live holder: a session of our own holding the lock on its key.
	holder, err := pgx.Connect(ctx, e.srv.Deps.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	const liveKey, deadKey = int64(0x1234_5678_9abc), int64(0x0fed_cba9_8765)
	if _, err := holder.Exec(ctx, "select pg_advisory_lock($1)", liveKey); err != nil {
		t.Fatal(err)
	}
	for sub, key := range map[string]int64{live: liveKey, dead: deadKey} {
		if _, err := e.srv.Deps.Owner.Exec(ctx, `update case_submissions set status = 'grading', grading_started_at = now(), grading_holder = $2 where id = $1`, sub, key); err != nil {
			t.Fatal(err)
		}
	}
	if st, out := e.call(a, hdr("grade", live), map[string]any{}); st != 409 {
		t.Fatalf("a live server's claim was taken: %d %v", st, out)
	}
	e.fake.Script(twoPasses(sum70)...)
	if st, out := e.call(a, hdr("grade", dead), map[string]any{}); st != 200 || !strings.Contains(text(out), "PUNCTAJ TOTAL: 70/100") {
		t.Fatalf("a dead server's claim was not taken again: %d %v", st, out)
	}
}
