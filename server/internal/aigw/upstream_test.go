package aigw

import (
	"context"
	"net/http"
	"testing"
	"time"

	"casus/server/internal/aigw/aitest"
)

// Retries happen on 408, 409, 429 and 5xx only, at most twice, waiting as retry-after says.
func TestRetryStatuses(t *testing.T) {
	f, err := aitest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := &upstream{base: f.URL, key: "k", client: &http.Client{Timeout: 10 * time.Second}, backoff: time.Millisecond}
	calls := func(script ...aitest.Reply) (int, int) {
		before := len(f.Requests())
		f.Script(script...)
		res, err := u.post(context.Background(), []byte(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`), false)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, len(f.Requests()) - before
	}
	for _, st := range []int{408, 409, 429, 500, 502, 503, 529} {
		if got, n := calls(aitest.Reply{Status: st}, aitest.Reply{Text: "ok"}); got != 200 || n != 2 {
			t.Errorf("%d: final %d after %d calls, want a retry", st, got, n)
		}
	}
	for _, st := range []int{400, 401, 403, 404, 413, 422} {
		if got, n := calls(aitest.Reply{Status: st}, aitest.Reply{Text: "unused"}); got != st || n != 1 {
			t.Errorf("%d: final %d after %d calls, want no retry", st, got, n)
		}
		calls() // consumes the unused reply
	}
	// Two retries at most: the third failure is returned as is.
	if got, n := calls(aitest.Reply{Status: 500}, aitest.Reply{Status: 500}, aitest.Reply{Status: 503}, aitest.Reply{Text: "late"}); got != 503 || n != 3 {
		t.Errorf("gave up with %d after %d calls", got, n)
	}
	calls() // consumes "late"
	// retry-after (seconds) is honoured.
	start := time.Now()
	if got, _ := calls(aitest.Reply{Status: 429, RetryAfter: "1"}, aitest.Reply{Text: "ok"}); got != 200 || time.Since(start) < time.Second {
		t.Errorf("retry-after not honoured: %d after %s", got, time.Since(start))
	}
}
