package gotrue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/testutil/testserver"
)

type amrEntry struct {
	Method    string `json:"method"`
	Timestamp int64  `json:"timestamp"`
}

// amrOf verifies an access token and returns its amr claim.
func amrOf(t *testing.T, access any) []amrEntry {
	t.Helper()
	s, _ := access.(string)
	var c struct {
		jwt.RegisteredClaims
		AMR []amrEntry `json:"amr"`
		AAL string     `json:"aal"`
	}
	if _, err := jwt.ParseWithClaims(s, &c, func(*jwt.Token) (any, error) { return []byte(testserver.Secret), nil }); err != nil {
		t.Fatalf("access token: %v", err)
	}
	if c.AAL != "aal1" {
		t.Fatalf("aal %q", c.AAL)
	}
	return c.AMR
}

func expectAMR(t *testing.T, got []amrEntry, method string, since time.Time) {
	t.Helper()
	if len(got) != 1 || got[0].Method != method || got[0].Timestamp < since.Unix()-1 || got[0].Timestamp > time.Now().Unix()+1 {
		t.Fatalf("amr %+v, want one %q entry since %d", got, method, since.Unix())
	}
}

// The amr claim names how the session was authenticated, with GoTrue's method names, and
// a refreshed token keeps the original method and time instead of describing the refresh.
func TestAMRClaims(t *testing.T) {
	e := start(t, nil)
	t0 := time.Now()

	// Password sign-in, then a refresh a second later: same entry, same timestamp.
	s := e.signupConfirmed("amr@example.ro", "secret1")
	first := amrOf(t, s["access_token"])
	expectAMR(t, first, "password", t0)
	time.Sleep(1100 * time.Millisecond)
	r := e.refresh(s["refresh_token"])
	if r.status != 200 {
		t.Fatalf("refresh: %v", r.body)
	}
	if again := amrOf(t, r.body["access_token"]); len(again) != 1 || again[0] != first[0] {
		t.Fatalf("refreshed amr %+v, want the sign-in's %+v", again, first)
	}
	r2 := e.refresh(r.body["refresh_token"])
	if again := amrOf(t, r2.body["access_token"]); len(again) != 1 || again[0] != first[0] {
		t.Fatalf("second refresh amr %+v", again)
	}

	// Links followed in the implicit flow (signup confirmation, magic link, recovery):
	// "otp", as GoTrue's /verify issues them; kept across a refresh as well.
	for i, c := range []struct{ path, kind string }{{"/auth/v1/signup", "signup"}, {"/auth/v1/otp", "magiclink"}, {"/auth/v1/recover", "recovery"}} {
		email := fmt.Sprintf("link%d@example.ro", i)
		if c.kind == "recovery" {
			e.signupConfirmed(email, "secret1")
		}
		n := e.sink.Count(email)
		if r := e.do("POST", c.path, map[string]any{"email": email, "password": "secret1"}, ""); r.status != 200 {
			t.Fatalf("%s: %v", c.path, r.body)
		}
		m, ok := e.sink.WaitFor(email, n, 5*time.Second)
		if !ok {
			t.Fatalf("%s: no mail", c.kind)
		}
		_, frag := e.follow(m.Link)
		if frag.Get("type") != c.kind {
			t.Fatalf("%s: fragment %v", c.kind, frag)
		}
		expectAMR(t, amrOf(t, frag.Get("access_token")), "otp", t0)
		rr := e.refresh(frag.Get("refresh_token"))
		expectAMR(t, amrOf(t, rr.body["access_token"]), "otp", t0)
	}

	// POST /verify with the mailed token: "otp".
	if r := e.do("POST", "/auth/v1/otp", map[string]any{"email": "post@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, _ := e.sink.WaitFor("post@example.ro", 0, 5*time.Second)
	v := e.do("POST", "/auth/v1/verify", map[string]any{"type": "magiclink", "token": tokenOf(t, m.Link)}, "")
	if v.status != 200 {
		t.Fatalf("verify: %v", v.body)
	}
	expectAMR(t, amrOf(t, v.body["access_token"]), "otp", t0)

	// The PKCE flow reports the flow's method on the code exchange, as GoTrue does.
	verifier := "amr-code-verifier-of-sufficient-length-0123456789"
	for i, c := range []struct{ path, method string }{{"/auth/v1/signup", "email/signup"}, {"/auth/v1/otp", "magiclink"}, {"/auth/v1/recover", "recovery"}} {
		email := fmt.Sprintf("pkce%d@example.ro", i)
		if c.method == "recovery" {
			e.signupConfirmed(email, "secret1")
		}
		n := e.sink.Count(email)
		body := map[string]any{"email": email, "password": "secret1", "code_challenge": s256(verifier), "code_challenge_method": "s256"}
		r := e.do("POST", c.path, body, "")
		if r.status != 200 {
			t.Fatalf("%s: %v", c.path, r.body)
		}
		m, ok := e.sink.WaitFor(email, n, 5*time.Second)
		if !ok {
			t.Fatalf("%s: no mail", c.method)
		}
		loc, _ := e.followFrom(m.Link, r.header.Get("Set-Cookie")) // the requesting browser

		x := e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": loc.Query().Get("code"), "code_verifier": verifier}, "")
		if x.status != 200 {
			t.Fatalf("%s exchange: %d %v", c.method, x.status, x.body)
		}
		expectAMR(t, amrOf(t, x.body["access_token"]), c.method, t0)
		rr := e.refresh(x.body["refresh_token"])
		expectAMR(t, amrOf(t, rr.body["access_token"]), c.method, t0)
	}
}
