package domaindb

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// Feedback is the one write open to the anon key: at most FEEDBACK_RATE_LIMIT_PER_IP rows an
// hour per client and FEEDBACK_RATE_LIMIT_TOTAL in all, through the RPC and the table alike
// (a batch counts row by row), answered 429 with a Romanian message.
func TestFeedbackIsRateLimited(t *testing.T) {
	srv := testserver.Start(t, func(c *config.Config) {
		c.FeedbackPerIP, c.FeedbackTotal = 3, 5
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	send := func(client, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/rest/v1/"+path, bytes.NewReader([]byte(body)))
		req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client)
		req.Header.Set("X-Real-IP", "10.9.9.9") // a client's own claim, never believed
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	rpc := `{"p_body":"Un mesaj de 4 KB` + strings.Repeat(".", 4000) + `"}`
	row := `{"body":"Salut"}`
	for i, path := range []string{"rpc/submit_feedback", "feedback", "rpc/submit_feedback"} {
		body := rpc
		if path == "feedback" {
			body = row
		}
		if st, b := send("203.0.113.1", path, body); st != 200 && st != 201 {
			t.Fatalf("feedback %d from one client: %d %s", i+1, st, b)
		}
	}
	st, b := send("203.0.113.1", "feedback", row)
	var e struct{ Code, Message string }
	_ = json.Unmarshal([]byte(b), &e)
	if st != 429 || e.Code != "over_feedback_rate_limit" || !strings.Contains(e.Message, "încerci din nou") {
		t.Fatalf("4th feedback from one client: %d %s", st, b)
	}
	// A batch from a new client is counted row by row: three rows fit the client's limit
	// but not the overall one (3 + 3 > 5); none is stored.
	if st, b := send("203.0.113.2", "feedback", `[{"body":"a"},{"body":"b"},{"body":"c"}]`); st != 429 {
		t.Fatalf("a batch over the overall limit: %d %s", st, b)
	}
	if st, b := send("203.0.113.2", "feedback", row); st != 201 {
		t.Fatalf("another client: %d %s", st, b)
	}
	if st, b := send("203.0.113.3", "rpc/submit_feedback", rpc); st != 200 {
		t.Fatalf("the fifth row overall: %d %s", st, b)
	}
	if st, b := send("203.0.113.4", "rpc/submit_feedback", rpc); st != 429 || !strings.Contains(b, "Primim prea multe mesaje") {
		t.Fatalf("over the overall limit: %d %s", st, b)
	}
	var n int
	if err := srv.Deps.Owner.QueryRow(t.Context(), `select count(*) from public.feedback`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("feedback stored: %d, %v (want 5)", n, err)
	}
}
