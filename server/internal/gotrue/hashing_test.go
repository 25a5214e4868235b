package gotrue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"casus/server/internal/gotrue"
)

// Password hashing runs in a bounded number of slots: while every slot is taken (a burst
// of sign-ins), further sign-ups and sign-ins wait in line, requests that hash nothing are
// answered meanwhile, and a client that gives up leaves the line.
func TestPasswordHashingIsBoundedWhileOtherRequestsProceed(t *testing.T) {
	e := start(t, nil)
	sess := e.signupConfirmed("slots@example.ro", "secret-slots")
	access, refresh := sess["access_token"].(string), sess["refresh_token"].(string)

	s, err := gotrue.New(t.Context(), e.srv.Deps)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mux := http.NewServeMux()
	s.Routes(mux)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	send := func(ctx context.Context, method, path string, body any, bearer string) (int, error) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(ctx, method, ts.URL+path, rd)
		req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, nil
	}
	waitFor := func(n int64) {
		t.Helper()
		for start := time.Now(); gotrue.HashWaiting(s) != n; {
			if time.Since(start) > 20*time.Second {
				t.Fatalf("%d requests wait for a hash slot, want %d", gotrue.HashWaiting(s), n)
			}
			time.Sleep(5 * time.Millisecond) // polling the condition, not a fixed wait
		}
	}

	release := gotrue.HoldHashSlots(s)
	held := true
	defer func() {
		if held {
			release()
		}
	}()
	type answer struct {
		what   string
		status int
	}
	answers := make(chan answer, 3)
	for _, r := range []struct {
		what, path string
		body       map[string]any
	}{
		{"sign-in", "/auth/v1/token?grant_type=password", map[string]any{"email": "slots@example.ro", "password": "secret-slots"}},
		{"wrong password", "/auth/v1/token?grant_type=password", map[string]any{"email": "slots@example.ro", "password": "not-it"}},
		{"sign-up", "/auth/v1/signup", map[string]any{"email": "slots-new@example.ro", "password": "secret-new"}},
	} {
		go func() {
			st, err := send(context.Background(), "POST", r.path, r.body, "")
			if err != nil {
				t.Error(r.what, err)
			}
			answers <- answer{r.what, st}
		}()
	}
	waitFor(3)

	// A client that gives up while waiting leaves the line.
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := send(ctx, "POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "slots@example.ro", "password": "secret-slots"}, "")
		gaveUp <- err
	}()
	waitFor(4)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled sign-in: %v", err)
	}
	waitFor(3)

	// Requests that hash nothing are answered while every slot is taken.
	for _, r := range []struct {
		method, path string
		body         any
		bearer       string
	}{
		{"GET", "/auth/v1/user", nil, access},
		{"GET", "/auth/v1/settings", nil, ""},
		{"POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": refresh}, ""},
	} {
		if st, err := send(context.Background(), r.method, r.path, r.body, r.bearer); err != nil || st != 200 {
			t.Fatalf("%s %s with every hash slot taken: %d %v", r.method, r.path, st, err)
		}
	}
	select {
	case a := <-answers:
		t.Fatalf("%s answered (%d) with every hash slot taken", a.what, a.status)
	default:
	}

	held = false
	release()
	want := map[string]int{"sign-in": 200, "wrong password": 400, "sign-up": 200}
	for range 3 {
		select {
		case a := <-answers:
			if a.status != want[a.what] {
				t.Errorf("%s: %d, want %d", a.what, a.status, want[a.what])
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the waiting requests were not answered after the slots were freed")
		}
	}
	if n := gotrue.HashWaiting(s); n != 0 {
		t.Fatalf("%d still waiting", n)
	}
}
