package aigw_test

import (
	"fmt"
	"testing"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// A user's daily AI quota is one across instances on the same database: requests answered
// by either count, and the refusal is the same 429 whichever instance answers.
func TestQuotaHoldsAcrossInstances(t *testing.T) {
	quota := func(c *config.Config) { c.AIDailyRequests = 2 }
	one := start(t, quota)
	two := &env{t: t, fake: one.fake, srv: testserver.Start(t, func(c *config.Config) {
		c.DatabaseURL = one.srv.Deps.DatabaseURL
		c.AIProvider, c.AnthropicBase, c.AnthropicAPIKey = "anthropic", one.fake.URL, "server-secret-key"
		quota(c)
	})}
	a := one.token(userA)
	hdr := map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	one.fake.Script(aitest.Reply{Text: "unu"}, aitest.Reply{Text: "doi"})
	for i, e := range []*env{one, two} {
		if st, out := e.call(a, hdr, map[string]any{"messages": msgs(1)}); st != 200 {
			t.Fatalf("request %d: %d %v", i+1, st, out)
		}
	}
	st1, out1 := one.call(a, hdr, map[string]any{"messages": msgs(1)})
	st2, out2 := two.call(a, hdr, map[string]any{"messages": msgs(1)})
	if st1 != 429 || st2 != 429 || errType(out1) != "rate_limit_error" || fmt.Sprint(out1) != fmt.Sprint(out2) {
		t.Fatalf("over the quota: %d %v and %d %v", st1, out1, st2, out2)
	}
}
