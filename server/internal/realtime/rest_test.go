package realtime_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// post sends a REST broadcast with the apikey and an optional bearer token; it returns
// the status and the decoded JSON body.
func post(t *testing.T, srv *testserver.Server, path, contentType, body, bearer string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
	req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return res.StatusCode, out
}

func single(topic, event string) string {
	return "/realtime/v1/api/broadcast/" + url.PathEscape(topic) + "/events/" + url.PathEscape(event)
}

// httpSend's endpoint, POST /api/broadcast/{topic}/events/{event} with the payload as
// body: the anon key reaches a public topic's subscribers; a topic naming an account
// stays its owner's (as over the socket); private topics without a policy, oversized payloads
// and missing keys get Realtime's answers, and nothing refused is delivered.
func TestRESTBroadcastOneMessage(t *testing.T) {
	srv := startServer(t)
	createUsers(t, srv)
	own := "progress-" + userA
	c := dial(t, srv, "2.0.0")
	c.join("realtime:room:1", map[string]any{}, "")
	c.join("realtime:"+own, map[string]any{}, token(t, srv, userA, time.Hour))

	if st, _ := post(t, srv, single("room:1", "cursor move"), "application/json", `{"x":1,"s":"ș"}`, ""); st != http.StatusAccepted {
		t.Fatalf("anon httpSend: %d", st)
	}
	got := c.next("realtime:room:1", "broadcast", 3*time.Second)
	if got["event"] != "cursor move" || got["type"] != "broadcast" || got["payload"].(map[string]any)["s"] != "ș" {
		t.Fatalf("delivered %v", got)
	}

	refusals := []struct {
		name, path, ctype, body, bearer string
		status                          int
		want                            string
	}{
		{"another user's topic", single(own, "forged"), "application/json", `{"grade":"100/100"}`, token(t, srv, userB, time.Hour), 403, `{"message":"Unauthorized"}`},
		{"anon into a user's topic", single(own, "forged"), "application/json", `{}`, "", 403, `{"message":"Unauthorized"}`},
		{"private topic", single("room:1", "x") + "?private=true", "application/json", `{}`, "", 403, `{"message":"Unauthorized"}`},
		{"bad token", single("room:1", "x"), "application/json", `{}`, "not-a-jwt", 401, `{"message":"Unauthorized"}`},
		{"oversized", single("room:1", "x"), "application/json", `{"b":"` + strings.Repeat("x", 300<<10) + `"}`, "", 422, `{"errors":{"payload":["Payload size exceeds tenant limit"]}}`},
		{"no payload", single("room:1", "x"), "application/json", ``, "", 422, `{"errors":{"payload":["can't be blank"]}}`},
		{"batch into a user's topic", "/realtime/v1/api/broadcast", "application/json", `{"messages":[{"topic":"room:1","event":"x","payload":{}},{"topic":"` + own + `","event":"forged","payload":{}}]}`, token(t, srv, userB, time.Hour), 403, `{"message":"Unauthorized"}`},
	}
	for _, r := range refusals {
		st, body := post(t, srv, r.path, r.ctype, r.body, r.bearer)
		b, _ := json.Marshal(body)
		if st != r.status || string(b) != r.want {
			t.Errorf("%s: %d %s, want %d %s", r.name, st, b, r.status, r.want)
		}
	}
	// The owner may send to their own topic; that is the first thing heard there, and the
	// refused batch sent nothing to the public room either.
	if st, _ := post(t, srv, single(own, "mine"), "application/json", `{"n":1}`, token(t, srv, userA, time.Hour)); st != http.StatusAccepted {
		t.Fatalf("owner httpSend: %d", st)
	}
	if got := c.next("realtime:"+own, "broadcast", 3*time.Second); got["event"] != "mine" {
		t.Fatalf("owner's topic first heard %v", got)
	}
	if st, _ := post(t, srv, single("room:1", "after"), "application/json", `[1,2]`, ""); st != http.StatusAccepted {
		t.Fatalf("array payload: %d", st)
	}
	if got := c.next("realtime:room:1", "broadcast", 3*time.Second); got["event"] != "after" {
		t.Fatalf("room first heard %v after the refusals", got)
	}
}

// Issue 32: REST broadcast has the socket's message budget per sender
// (REALTIME_MAX_EVENTS_PER_SECOND, bursts of ten seconds' worth); the probe sent 20,000
// messages in under a second. A batch spends one per message; the service role is not
// limited.
func TestRESTBroadcastIsRateLimited(t *testing.T) {
	srv := testserver.Start(t, func(c *config.Config) { c.RealtimeMaxEventsPerSec = 1 })
	a := token(t, srv, userA, time.Hour)
	start, accepted := time.Now(), 0
	for range 60 {
		st, body := post(t, srv, single("room:1", "x"), "application/json", `{}`, a)
		if st == http.StatusTooManyRequests {
			if body["message"] != "Too many messages per second" {
				t.Fatalf("429 body: %v", body)
			}
			break
		}
		if st != http.StatusAccepted {
			t.Fatalf("message %d: %d %v", accepted, st, body)
		}
		accepted++
	}
	if limit := 10 + int(time.Since(start).Seconds()) + 1; accepted == 60 || accepted > limit {
		t.Fatalf("a signed-in user sent %d messages (budget about %d)", accepted, limit)
	}
	// A batch larger than the budget is refused whole, for a sender that spent nothing.
	batch := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"topic":"room:1","event":"x","payload":{}},`, 11), ",") + `]}`
	if st, body := post(t, srv, "/realtime/v1/api/broadcast", "application/json", batch, token(t, srv, userB, time.Hour)); st != http.StatusTooManyRequests {
		t.Fatalf("a batch of 11: %d %v", st, body)
	}
	for i := range 30 {
		if st, body := post(t, srv, single("room:1", "x"), "application/json", `{}`, srv.Deps.Keys.ServiceKey); st != http.StatusAccepted {
			t.Fatalf("service role message %d: %d %v", i, st, body)
		}
	}
}
