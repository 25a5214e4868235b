package gotrue_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// Concurrent GET /user requests share statements (userbatch.go): every answer must still be
// its own user's, and a signed-out session in the same burst must still be refused.
func TestConcurrentGetUserAnswersEachCaller(t *testing.T) {
	e := start(t, nil)
	type caller struct{ token, id, email string }
	var callers []caller
	for i := range 12 {
		email := fmt.Sprintf("burst%d@example.ro", i)
		s := e.signupConfirmed(email, "secret1")
		callers = append(callers, caller{s["access_token"].(string), s["user"].(map[string]any)["id"].(string), email})
	}
	out := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "burst0@example.ro", "password": "secret1"}, "").body
	gone := out["access_token"].(string)
	if r := e.do("POST", "/auth/v1/logout?scope=local", nil, gone); r.status != 204 {
		t.Fatalf("logout: %d %v", r.status, r.body)
	}

	type answer struct {
		want   caller
		status int
		id     string
		email  string
		code   string
	}
	get := func(token string) (int, map[string]any, error) {
		req, _ := http.NewRequest("GET", e.srv.URL+"/auth/v1/user", nil)
		req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		var body map[string]any
		err = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body, err
	}
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	for round := 0; round < 15; round++ {
		for _, c := range append(callers, caller{token: gone}) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, body, err := get(c.token)
				a := answer{want: c, status: status}
				if err != nil {
					a.status = -1
				}
				a.id, _ = body["id"].(string)
				a.email, _ = body["email"].(string)
				a.code, _ = body["error_code"].(string)
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	if len(answers) != 15*13 {
		t.Fatalf("%d answers", len(answers))
	}
	for _, a := range answers {
		switch {
		case a.want.token == gone:
			if a.status != 403 || a.code != "session_not_found" {
				t.Errorf("signed-out session: %d %q", a.status, a.code)
			}
		case a.status != 200 || a.id != a.want.id || a.email != a.want.email:
			t.Errorf("%s got %d %s %s", a.want.email, a.status, a.id, a.email)
		}
	}
}
