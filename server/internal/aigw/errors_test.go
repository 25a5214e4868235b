package aigw_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/config"
)

// Bad input gets Anthropic's error shape with the right type, never a 500.
func TestErrorShapes(t *testing.T) {
	e := start(t, func(c *config.Config) { c.MaxBodyBytes = 4096 })
	a := e.token(userA)
	raw := func(body string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return res.StatusCode, b.String()
	}
	tutor := map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	for _, c := range []struct {
		body   string
		hdr    map[string]string
		status int
		typ    string
	}{
		{`{not json`, tutor, 400, "invalid_request_error"},
		{`{"messages": []}`, tutor, 400, "invalid_request_error"},
		{`{"messages": [{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, tutor, 413, "request_too_large"},
		{`{"messages": [{"role":"user","content":"x"}]}`, map[string]string{"X-Casus-Task": "tutor"}, 400, "invalid_request_error"},
		{`{"messages": [{"role":"user","content":"x"}]}`, map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": "not-a-uuid"}, 404, "not_found_error"},
		{`{}`, map[string]string{"X-Casus-Task": "grade"}, 400, "invalid_request_error"},
		{`{}`, map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": "00000000-0000-4000-8000-000000000000"}, 404, "not_found_error"},
	} {
		st, body := raw(c.body, c.hdr)
		if st != c.status || !strings.Contains(body, `"type":"error"`) || !strings.Contains(body, `"type":"`+c.typ+`"`) {
			t.Errorf("%.40s %v: %d %s", c.body, c.hdr, st, body)
		}
	}
	// An upstream error reaches the browser as a generic error in the same shape; what the
	// provider said stays in the log.
	e.fake.Script(aitest.Reply{Status: 400})
	if st, body := raw(`{"messages": [{"role":"user","content":"x"}]}`, tutor); st != 502 || strings.Contains(body, `scripted`) || !strings.Contains(body, `"type":"api_error"`) {
		t.Errorf("upstream 400: %d %s", st, body)
	}
}

// A browser that closes a stream midway cancels the upstream stream.
func TestStreamDisconnectCancelsUpstream(t *testing.T) {
	e := start(t, nil)
	a := e.token(userA)
	e.fake.Script(aitest.Reply{Text: strings.Repeat("cuvânt ", 200), DelayMS: 20})
	req, _ := http.NewRequest("POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(`{"stream": true, "messages": [{"role": "user", "content": "x"}]}`))
	req.Header.Set("Authorization", "Bearer "+a)
	req.Header.Set("X-Casus-Task", "tutor")
	req.Header.Set("X-Casus-Case", caseID)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "event: content_block_delta") {
	}
	res.Body.Close() // mid-stream: ~200 words still to come, 4 s at 20 ms each
	deadline := time.Now().Add(2 * time.Second)
	for e.fake.CancelledCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if e.fake.CancelledCount() == 0 {
		t.Fatal("upstream stream kept running after the browser left")
	}
}
