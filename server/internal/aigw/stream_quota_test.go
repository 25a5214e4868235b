package aigw_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/config"
)

// Tokens a stream reports (message_start input, message_delta output) count toward the
// daily token quota, so streaming is no way around it.
func TestStreamedTokensCountTowardQuota(t *testing.T) {
	e := start(t, func(c *config.Config) { c.AIDailyTokens = 12 })
	a := e.token(userA)
	e.fake.Script(aitest.Reply{Text: "unu doi trei"}) // 10 input + 3 output tokens
	req, _ := http.NewRequest("POST", e.srv.URL+"/ai/v1/messages", strings.NewReader(`{"stream": true, "messages": [{"role": "user", "content": "x"}]}`))
	req.Header.Set("Authorization", "Bearer "+a)
	req.Header.Set("X-Casus-Task", "tutor")
	req.Header.Set("X-Casus-Case", caseID)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "event: message_stop") {
		t.Fatalf("stream: %d %s", res.StatusCode, b)
	}
	var tokens int
	if err := e.srv.Deps.Owner.QueryRow(t.Context(), "select tokens from casus_meta.ai_usage where user_id = $1", userA).Scan(&tokens); err != nil || tokens != 13 {
		t.Fatalf("recorded tokens %d %v", tokens, err)
	}
	st, out := e.call(a, map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}, map[string]any{"messages": msgs(1)})
	if st != 429 || errType(out) != "rate_limit_error" {
		t.Fatalf("over the token quota: %d %v", st, out)
	}
}
