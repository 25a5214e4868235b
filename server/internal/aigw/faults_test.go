package aigw_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"casus/server/internal/aigw/aitest"
)

// post sends one gateway call and returns the status, the content type and the whole
// body (a stream is read to its end); err is the transport's error, if any.
func (e *env) post(ctx context.Context, token string, hdr map[string]string, body string) (int, string, string, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(b), err
}

// anthropicError reports whether body is the Messages API's error object (or, in a
// stream, ends with its error event) and returns the error's type.
func anthropicError(contentType, body string) (string, bool) {
	if strings.HasPrefix(contentType, "text/event-stream") {
		i := strings.LastIndex(body, "event: error\ndata: ")
		if i < 0 {
			return "", false
		}
		body = strings.TrimSpace(strings.SplitN(body[i+len("event: error\ndata: "):], "\n", 2)[0])
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type == "" || e.Error.Message == "" {
		return "", false
	}
	return e.Error.Type, true
}

// unchanged checks that a submission kept its text and holds neither a check nor a
// grade: a failed AI call records nothing, and nothing half.
func (e *env) unchanged(sub, text string, checked bool) {
	e.t.Helper()
	var got, status string
	var score *string
	var value *float64
	var checkedAt, feedbackAt *time.Time
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), `select submission_text, status, score, score_value, ai_checked_at, feedback_at
		from case_submissions where id = $1`, sub).Scan(&got, &status, &score, &value, &checkedAt, &feedbackAt); err != nil {
		e.t.Fatal(err)
	}
	if got != text || status != "submitted" || score != nil || value != nil || feedbackAt != nil || (checkedAt != nil) != checked {
		e.t.Fatalf("submission changed by a failed call: text %q status %s score %v/%v checked %v feedback_at %v", got, status, score, value, checkedAt, feedbackAt)
	}
}

// The AI upstream failing in every way a network can — 5xx past the retries, a proxy's
// HTML error page, a reset connection, a reply cut in half, a stream cut short — gets
// the browser an error in the Messages API's shape (JSON, or an error event once a
// stream has started), never a 200 with a broken body; the submission keeps its text and
// records nothing; the server goes on serving.
func TestUpstreamFaultsAnswerAnthropicErrors(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	ctx := context.Background()
	const text = "Ion răspunde delictual (art. 1357 C.civ.): fapta, prejudiciul, legătura cauzală, vinovăția."
	tutor := map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	stream := `{"stream": true, "messages": [{"role": "user", "content": "De unde încep?"}]}`
	three := func(r aitest.Reply) []aitest.Reply { return []aitest.Reply{r, r, r} } // the gateway tries 3 times
	html := aitest.Reply{Status: 502, Raw: "<html><body><h1>502 Bad Gateway</h1></body></html>"}
	cases := []struct {
		name   string
		script []aitest.Reply
		task   string // detect, grade or tutor (streamed)
		// started: the stream had begun (200), so the error comes as its last event;
		// otherwise a 5xx JSON error.
		started bool
	}{
		{"detect: 500 after retries", three(aitest.Reply{Status: 500}), "detect", false},
		{"detect: 529 overloaded after retries", three(aitest.Reply{Status: 529}), "detect", false},
		{"detect: a proxy's HTML 502", three(html), "detect", false},
		{"detect: connection reset", three(aitest.Reply{Fault: aitest.FaultReset}), "detect", false},
		{"detect: reply cut in half", []aitest.Reply{{Fault: aitest.FaultCut, Text: `{"probability": 5, "decision": "PASSED", "justification": "x"}`}}, "detect", false},
		{"grade: reply cut in half", []aitest.Reply{{Fault: aitest.FaultCut, Text: "PUNCTAJ TOTAL: 90/100"}}, "grade", false},
		{"grade: connection reset", three(aitest.Reply{Fault: aitest.FaultReset}), "grade", false},
		{"tutor: a proxy's HTML 502", three(html), "tutor", false},
		{"tutor: connection reset", three(aitest.Reply{Fault: aitest.FaultReset}), "tutor", false},
		{"tutor: stream cut short", []aitest.Reply{{Fault: aitest.FaultCut, Text: "Care sunt condițiile răspunderii delictuale?"}}, "tutor", true},
	}
	for _, c := range cases {
		sub := e.submission(userA, text)
		if c.task == "grade" { // a passed check first, so only the grade call fails
			if st, _, body, err := e.post(ctx, a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, `{}`); err != nil || st != 200 {
				t.Fatalf("%s: detect: %d %v %s", c.name, st, err, body)
			}
		}
		e.fake.Reset()
		e.fake.Script(c.script...)
		hdr, body := tutor, stream
		if c.task != "tutor" {
			hdr, body = map[string]string{"X-Casus-Task": c.task, "X-Casus-Submission": sub}, `{}`
		}
		st, ct, got, err := e.post(ctx, a, hdr, body)
		if err != nil {
			t.Errorf("%s: transport error to the browser: %v", c.name, err)
			continue
		}
		typ, ok := anthropicError(ct, got)
		if !ok || (c.started && st != 200) || (!c.started && (st < 500 || st > 599)) {
			t.Errorf("%s: %d %s %q, want an Anthropic error (5xx, or the stream's last event once it began)", c.name, st, ct, got)
			continue
		}
		if typ != "api_error" && typ != "overloaded_error" {
			t.Errorf("%s: error type %q", c.name, typ)
		}
		e.unchanged(sub, text, c.task == "grade")
		// My Progress names what happened: a failed check or grade, not "in progress".
		want := "failed"
		if c.task == "tutor" {
			want = "pending"
		}
		if got := e.state(sub); got != want {
			t.Errorf("%s: submission state %q, want %q", c.name, got, want)
		}
	}
	// After all of it the gateway still answers normally.
	e.fake.Reset()
	sub := e.submission(userA, text)
	for _, task := range []string{"detect", "grade"} {
		if st, _, body, err := e.post(ctx, a, map[string]string{"X-Casus-Task": task, "X-Casus-Submission": sub}, `{}`); err != nil || st != 200 {
			t.Fatalf("%s after the faults: %d %v %s", task, st, err, body)
		}
	}
	if got := e.state(sub); got != "graded" {
		t.Errorf("state after a good grade: %q", got)
	}
}

// state is the submission's state as My Progress reads it (submissions_with_details).
func (e *env) state(sub string) string {
	e.t.Helper()
	var s string
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), `select state from submissions_with_details where id = $1`, sub).Scan(&s); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// A hanging upstream (a timeout) or a slow stream: the browser giving up cancels the
// upstream call and records nothing; a slow stream arrives whole.
func TestUpstreamHangAndSlowStream(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	const text = "Soluția mea, scrisă de mine."
	sub := e.submission(userA, text)
	e.fake.Script(aitest.Reply{Fault: aitest.FaultHang})
	// The browser gives up once the call has reached the upstream.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(e.fake.Requests()) == 0 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, _, _, err := e.post(ctx, a, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, `{}`)
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("hanging upstream: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.fake.CancelledCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.fake.CancelledCount() != 1 {
		t.Fatalf("the hanging upstream call was not cancelled (%d)", e.fake.CancelledCount())
	}
	e.unchanged(sub, text, false)

	words := "Ce normă crezi că se aplică faptelor din speță?"
	e.fake.Script(aitest.Reply{Text: words, DelayMS: 40})
	st, ct, body, err := e.post(context.Background(), a, map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID},
		`{"stream": true, "messages": [{"role": "user", "content": "De unde încep?"}]}`)
	if err != nil || st != 200 || ct != "text/event-stream" || !strings.Contains(body, "event: message_stop") || strings.Contains(body, "event: error") {
		t.Fatalf("slow stream: %d %s %v %q", st, ct, err, body)
	}
	var got strings.Builder
	for _, line := range strings.Split(body, "\n") {
		var ev struct {
			Delta struct {
				Text string `json:"text"`
			} `json:"delta"`
		}
		if strings.HasPrefix(line, "data: ") && json.Unmarshal([]byte(line[6:]), &ev) == nil {
			got.WriteString(ev.Delta.Text)
		}
	}
	if got.String() != words {
		t.Fatalf("slow stream text %q", got.String())
	}
}

// Two grade (or check) calls for one submission at once — a double click, two tabs, an
// SDK retry overtaking a slow first call — record one result, and no caller is answered
// a result other than the recorded one (the second may instead be told, with a 409,
// that the submission is being evaluated).
func TestConcurrentCallsRecordOnce(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	sub := e.submission(userA, "Soluția mea.")
	race := func(task string, replies ...aitest.Reply) []string {
		e.fake.Reset()
		e.fake.Script(replies...)
		e.fake.HoldUntil(len(replies)) // every call reaches the model before any is answered
		var wg sync.WaitGroup
		out := make([]string, len(replies))
		for i := range replies {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				st, ct, body, err := e.post(context.Background(), a, map[string]string{"X-Casus-Task": task, "X-Casus-Submission": sub}, `{}`)
				var m map[string]any
				_ = json.Unmarshal([]byte(body), &m)
				if typ, _ := anthropicError(ct, body); st == 409 && typ == "invalid_request_error" {
					out[i] = "busy"
					return
				}
				if err != nil || st != 200 {
					t.Errorf("%s %d: %d %v %s", task, i, st, err, body)
				}
				out[i] = text(m)
			}(i)
		}
		wg.Wait()
		return out
	}
	checks := race("detect",
		aitest.Reply{Text: `{"probability": 5, "decision": "PASSED", "justification": "primul"}`},
		aitest.Reply{Text: `{"probability": 9, "decision": "PASSED", "justification": "al doilea"}`, DelayMS: 100})
	var justification string
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), "select ai_justification from case_submissions where id = $1", sub).Scan(&justification); err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c == "busy" {
			continue
		}
		var d struct {
			Justification string `json:"justification"`
		}
		if json.Unmarshal([]byte(c), &d) != nil || d.Justification != justification {
			t.Errorf("a caller was answered a check that is not the recorded one (%q): %q", justification, c)
		}
	}
	grades := race("grade", aitest.Reply{Text: gradeText(sum70)}, aitest.Reply{Text: gradeText([10]int{3, 5, 3, 4, 5, 3, 5, 10, 7, 5}), DelayMS: 100})
	var score string
	var feedback string
	if err := e.srv.Deps.Owner.QueryRow(context.Background(), "select score, feedback_text from case_submissions where id = $1", sub).Scan(&score, &feedback); err != nil {
		t.Fatal(err)
	}
	for _, g := range grades {
		if g == "busy" {
			continue
		}
		if g != feedback || !strings.Contains(g, "PUNCTAJ TOTAL: "+score) {
			t.Errorf("a caller was answered a grade that is not the recorded one (%s): %q", score, g)
		}
	}
}
