package gotrue_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// payload decodes a JWT's claims without verifying them, keeping JSON types as sent.
func payload(t *testing.T, tok string) map[string]json.RawMessage {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Mail links and the token issuer use API_EXTERNAL_URL; redirects still default to
// SITE_URL.
func TestAPIExternalURLInLinksAndIssuer(t *testing.T) {
	const api = "https://api.casus.test"
	e := start(t, func(c *config.Config) { c.APIExternalURL = api })
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "ext@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, ok := e.sink.WaitFor("ext@example.ro", 0, 5*time.Second)
	if !ok {
		t.Fatal("no confirmation mail")
	}
	if !strings.HasPrefix(m.Link, api+"/auth/v1/verify?") {
		t.Fatalf("link not on API_EXTERNAL_URL: %s", m.Link)
	}
	link, _ := url.Parse(m.Link)
	if got := link.Query().Get("redirect_to"); got != e.srv.URL {
		t.Fatalf("default redirect is SITE_URL, got %q", got)
	}
	loc, frag := e.follow(m.Link) // the same path and query, on this test server
	if loc.Scheme+"://"+loc.Host != e.srv.URL {
		t.Fatalf("landed on %s", loc)
	}
	claims := payload(t, frag.Get("access_token"))
	if string(claims["iss"]) != `"`+api+`/auth/v1"` {
		t.Fatalf("iss = %s", claims["iss"])
	}

	// Without API_EXTERNAL_URL, SITE_URL is the API's address.
	d := start(t, nil)
	tok := d.signupConfirmed("site@example.ro", "secret1")
	if got := string(payload(t, tok["access_token"].(string))["iss"]); got != `"`+d.srv.URL+`/auth/v1"` {
		t.Fatalf("default iss = %s", got)
	}
}

func TestAPIExternalURLMustBeAbsolute(t *testing.T) {
	t.Setenv("JWT_SECRET", testserver.Secret)
	t.Setenv("CASUS_STATE_DIR", t.TempDir())
	t.Setenv("API_EXTERNAL_URL", "api.casus.test")
	if _, err := config.Load(); err == nil || !strings.Contains(err.Error(), "API_EXTERNAL_URL") {
		t.Fatalf("a relative API_EXTERNAL_URL was accepted: %v", err)
	}
}

// aud is the string "authenticated", as GoTrue writes it, so a policy comparing
// auth.jwt()->>'aud' admits the user through the data API; a token whose aud is an
// array (issued before) is still accepted.
func TestTokenAudIsAStringPoliciesCanCompare(t *testing.T) {
	e := start(t, nil)
	for _, q := range []string{
		"create table public.aud_probe (id int primary key, note text not null)",
		"alter table public.aud_probe enable row level security",
		"create policy aud_probe_read on public.aud_probe for select to authenticated using (auth.jwt()->>'aud' = 'authenticated')",
		"grant select on public.aud_probe to authenticated",
		"insert into public.aud_probe values (1, 'vizibil')",
	} {
		e.exec(q)
	}
	tok := e.signupConfirmed("aud@example.ro", "secret1")
	access := tok["access_token"].(string)
	if got := string(payload(t, access)["aud"]); got != `"authenticated"` {
		t.Fatalf("aud = %s, want the string", got)
	}
	// The schema cache picks the table up after its DDL; wait for it, then read.
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body := e.rest("/rest/v1/aud_probe?select=note", access)
		if status == 200 && body == `[{"note":"vizibil"}]` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the aud policy did not admit the user: %d %s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// An older token with aud as an array still verifies.
	old := jwt.MapClaims{}
	for k, v := range payload(t, access) {
		var x any
		_ = json.Unmarshal(v, &x)
		old[k] = x
	}
	old["aud"] = []string{"authenticated"}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, old).SignedString([]byte(testserver.Secret))
	if err != nil {
		t.Fatal(err)
	}
	if string(payload(t, signed)["aud"]) != `["authenticated"]` {
		t.Fatal("the legacy token was not built with an array aud")
	}
	if r := e.do("GET", "/auth/v1/user", nil, signed); r.status != 200 {
		t.Fatalf("array aud refused by /auth/v1/user: %d %v", r.status, r.body)
	}
	if status, body := e.rest("/rest/v1/aud_probe?select=note", signed); status != 200 || body != "[]" {
		// ->>'aud' of an array is null: the policy (rightly) hides the row, but the
		// request itself is accepted.
		t.Fatalf("array aud through the data API: %d %s", status, body)
	}
}

// rest calls the data API with the anon key and a bearer token; it returns the body
// as text.
func (e *env) rest(path, bearer string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
	req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// A redirect_to outside the allow-list is replaced by SITE_URL (GoTrue's GetReferrer),
// never followed, and the request succeeds.
func TestRedirectOutsideAllowListFallsBackToSiteURL(t *testing.T) {
	e := start(t, nil)
	r := e.do("POST", "/auth/v1/signup?redirect_to="+url.QueryEscape("https://evil.example.com/cb"), map[string]any{"email": "fb@example.ro", "password": "secret1"}, "")
	if r.status != 200 {
		t.Fatalf("signup with a foreign redirect: %d %v", r.status, r.body)
	}
	m, ok := e.sink.WaitFor("fb@example.ro", 0, 5*time.Second)
	if !ok {
		t.Fatal("no mail")
	}
	if strings.Contains(m.Link, "evil") {
		t.Fatalf("foreign host in the link: %s", m.Link)
	}
	loc, frag := e.follow(m.Link)
	if loc.Scheme+"://"+loc.Host != e.srv.URL || frag.Get("access_token") == "" {
		t.Fatalf("landed on %s", loc)
	}
	// A link whose redirect_to was edited to a foreign host lands on SITE_URL too.
	if r := e.do("POST", "/auth/v1/recover", map[string]any{"email": "fb@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, _ = e.sink.WaitFor("fb@example.ro", 1, 5*time.Second)
	u, _ := url.Parse(m.Link)
	q := u.Query()
	q.Set("redirect_to", "https://evil.example.com/")
	got := e.do("GET", u.Path+"?"+q.Encode(), nil, "")
	if got.status != 303 || !strings.HasPrefix(got.header.Get("Location"), e.srv.URL+"#") {
		t.Fatalf("edited link: %d %s", got.status, got.header.Get("Location"))
	}
}

// Unknown paths under /auth/v1 answer a JSON 404 in GoTrue's error shape, even with a
// built web app whose index.html answers every other unknown path.
func TestUnknownAuthPathIsJSON404(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>Casus</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := start(t, func(c *config.Config) { c.FrontendDir = dir })
	for _, p := range []string{"/auth/v1/nope", "/auth/v1/admin/nope", "/auth/v1/", "/auth/v1/user/nope/x"} {
		for _, m := range []string{"GET", "POST"} {
			r := e.do(m, p, nil, "")
			e.expectErr(r, 404, "not_found")
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("%s %s: content type %q", m, p, ct)
			}
		}
	}
	// A known path asked with another method is a 405, not a 404.
	for _, mp := range [][2]string{{"DELETE", "/auth/v1/user"}, {"GET", "/auth/v1/signup"}, {"PATCH", "/auth/v1/admin/users/x"}, {"GET", "/auth/v1/user/identities/x"}} {
		if r := e.do(mp[0], mp[1], nil, ""); r.status != 405 {
			t.Fatalf("%s %s: %d %v", mp[0], mp[1], r.status, r.body)
		}
	}
	// The web app still answers its own routes.
	res, err := http.Get(e.srv.URL + "/dashboard")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), "<title>Casus</title>") {
		t.Fatalf("web app route: %d %s", res.StatusCode, b)
	}
}
