package gotrue_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"casus/server/internal/config"
	"casus/server/internal/gotrue"
)

func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.srv.Deps.Owner.Exec(e.t.Context(), sql, args...); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) refresh(token any) resp {
	return e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": token}, "")
}

// GoTrue's reuse rules: the parent of the current token gets the current token back at
// any time; another rotated token gets a fresh one only within the reuse interval.
func TestRefreshReuseRules(t *testing.T) {
	e := start(t, nil)
	s := e.signupConfirmed("reuse@example.ro", "secret1")
	r1 := s["refresh_token"].(string)
	r2 := e.refresh(r1).body["refresh_token"].(string)
	e.exec("update auth.refresh_tokens set updated_at = now() - interval '1 hour' where revoked")
	if again := e.refresh(r1); again.status != 200 || again.body["refresh_token"] != r2 {
		t.Fatalf("parent of the current token: %d %v", again.status, again.body)
	}
	r3 := e.refresh(r2).body["refresh_token"].(string)
	// r1 is now a grandparent; within the interval it still yields a (new) token.
	e.exec("update auth.refresh_tokens set updated_at = now() where token = $1", r1)
	within := e.refresh(r1)
	if within.status != 200 || within.body["refresh_token"] == r3 || within.body["refresh_token"] == r2 {
		t.Fatalf("within the reuse interval: %d %v", within.status, within.body)
	}
	// A banned user cannot refresh.
	id := s["user"].(map[string]any)["id"].(string)
	e.exec("update auth.users set banned_until = now() + interval '1 day' where id = $1", id)
	e.expectErr(e.refresh(r3), 400, "user_banned")
	e.expectErr(e.refresh(""), 400, "validation_failed")
	e.expectErr(e.refresh(12), 400, "bad_json")
}

func TestLogoutScopes(t *testing.T) {
	e := start(t, nil)
	a := e.signupConfirmed("scopes@example.ro", "secret1")
	b := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "scopes@example.ro", "password": "secret1"}, "").body
	c := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "scopes@example.ro", "password": "secret1"}, "").body
	if r := e.do("POST", "/auth/v1/logout?scope=others", nil, a["access_token"].(string)); r.status != 204 {
		t.Fatalf("others: %d %v", r.status, r.body)
	}
	if r := e.do("GET", "/auth/v1/user", nil, a["access_token"].(string)); r.status != 200 {
		t.Fatal("the caller's session ended with scope=others")
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, b["access_token"].(string)), 403, "session_not_found")
	e.expectErr(e.refresh(c["refresh_token"]), 400, "refresh_token_not_found")
	d := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "scopes@example.ro", "password": "secret1"}, "").body
	if r := e.do("POST", "/auth/v1/logout", nil, a["access_token"].(string)); r.status != 204 {
		t.Fatalf("global: %d", r.status)
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, d["access_token"].(string)), 403, "session_not_found")
	e.expectErr(e.do("POST", "/auth/v1/logout", nil, ""), 401, "no_authorization")
}

func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("link %q", link)
	}
	return u.Query().Get("token")
}

func TestResendAndVerifyPost(t *testing.T) {
	e := start(t, nil)
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "resend@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	first, _ := e.sink.WaitFor("resend@example.ro", 0, 5*time.Second)
	if r := e.do("POST", "/auth/v1/resend", map[string]any{"type": "signup", "email": "resend@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	second, ok := e.sink.WaitFor("resend@example.ro", 1, 5*time.Second)
	if !ok || second.Link == first.Link {
		t.Fatal("no second confirmation")
	}
	// Resending replaced the token: the first link is dead.
	e.expectErr(e.do("POST", "/auth/v1/verify", map[string]any{"type": "signup", "token": tokenOf(t, first.Link)}, ""), 403, "otp_expired")
	e.expectErr(e.do("POST", "/auth/v1/verify", map[string]any{"token": tokenOf(t, second.Link)}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/verify", map[string]any{"type": "signup"}, ""), 400, "validation_failed")
	v := e.do("POST", "/auth/v1/verify", map[string]any{"type": "signup", "token_hash": tokenOf(t, second.Link)}, "")
	if v.status != 200 || v.body["access_token"] == nil || v.body["user"].(map[string]any)["email_confirmed_at"] == nil {
		t.Fatalf("verify: %d %v", v.status, v.body)
	}
	// Resend for a confirmed or unknown address answers the same and sends nothing.
	for _, addr := range []string{"resend@example.ro", "ghost@example.ro"} {
		if r := e.do("POST", "/auth/v1/resend", map[string]any{"type": "signup", "email": addr}, ""); r.status != 200 {
			t.Fatal(r.body)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if e.sink.Count("resend@example.ro") != 2 || e.sink.Count("ghost@example.ro") != 0 {
		t.Fatal("resend sent to a confirmed or unknown address")
	}
	e.expectErr(e.do("POST", "/auth/v1/resend", map[string]any{"type": "sms", "email": "resend@example.ro"}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/resend", map[string]any{"type": "signup", "email": "nope"}, ""), 400, "validation_failed")
}

func TestExpiredLinkAndRedirects(t *testing.T) {
	e := start(t, func(c *config.Config) { c.AdditionalRedirectURLs = []string{"http://localhost:5173"} })
	if r := e.do("POST", "/auth/v1/signup?redirect_to="+url.QueryEscape("http://localhost:5173/welcome"), map[string]any{"email": "late@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, _ := e.sink.WaitFor("late@example.ro", 0, 5*time.Second)
	if !strings.Contains(m.Link, url.QueryEscape("http://localhost:5173/welcome")) {
		t.Fatalf("additional redirect lost: %s", m.Link)
	}
	// A tampered redirect on the link itself is not followed: GoTrue lands on SITE_URL.
	evil := strings.Replace(m.Link, url.QueryEscape("http://localhost:5173/welcome"), url.QueryEscape("https://evil.example.com/"), 1)
	u, _ := url.Parse(evil)
	if r := e.do("GET", u.RequestURI(), nil, ""); r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), e.srv.URL+"#") {
		t.Fatalf("tampered redirect: %d %s", r.status, r.header.Get("Location"))
	}
	// A link older than a day lands with otp_expired in the fragment.
	e.exec("update auth.one_time_tokens set created_at = now() - interval '2 days'")
	loc, frag := e.follow(m.Link)
	if loc.Host != "localhost:5173" || frag.Get("error_code") != "otp_expired" || frag.Get("error") != "access_denied" {
		t.Fatalf("expired link: %s", loc)
	}
	// A redirect outside the allow-list falls back to SITE_URL, as in GoTrue.
	for i, bad := range []string{"javascript:alert(1)", "//evil.example.com", "http://127.0.0.1.evil.example.com/"} {
		if r := e.do("POST", "/auth/v1/otp?redirect_to="+url.QueryEscape(bad), map[string]any{"email": "late@example.ro"}, ""); r.status != 200 {
			t.Fatal(r.body)
		}
		m, ok := e.sink.WaitFor("late@example.ro", i+1, 5*time.Second)
		if !ok {
			t.Fatal("no mail for", bad)
		}
		lu, _ := url.Parse(m.Link)
		if got := lu.Query().Get("redirect_to"); got != e.srv.URL {
			t.Fatalf("redirect_to %q became %q", bad, got)
		}
	}
}

func TestPKCEExchange(t *testing.T) {
	e := start(t, nil)
	verifier := "another-code-verifier-of-sufficient-length-0123456789"
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "pkce@example.ro", "password": "secret1", "code_challenge": s256(verifier), "code_challenge_method": "S256"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, _ := e.sink.WaitFor("pkce@example.ro", 0, 5*time.Second)
	loc, frag := e.follow(m.Link)
	if loc.Query().Get("code") == "" || frag.Get("access_token") != "" {
		t.Fatalf("PKCE redirect must carry a code and no tokens: %s", loc)
	}
	r := e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": loc.Query().Get("code"), "code_verifier": verifier}, "")
	if r.status != 200 || r.body["access_token"] == nil || r.body["user"].(map[string]any)["email"] != "pkce@example.ro" {
		t.Fatalf("exchange: %d %v", r.status, r.body)
	}
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": loc.Query().Get("code"), "code_verifier": verifier}, ""), 404, "flow_state_not_found")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": "x"}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "pkce2@example.ro", "password": "secret1", "code_challenge": "abc", "code_challenge_method": "md5"}, ""), 400, "validation_failed")
}

func TestMagicLinkCreatesUserUnlessForbidden(t *testing.T) {
	e := start(t, nil)
	// create_user false: no account is made, and the answer is the one a known address
	// gets (TestOTPWithoutSignupDoesNotEnumerate compares them).
	if r := e.do("POST", "/auth/v1/otp", map[string]any{"email": "nobody@example.ro", "create_user": false}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/auth/v1/otp", map[string]any{"email": "new@example.ro", "data": map[string]any{"name": "Nou"}}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, ok := e.sink.WaitFor("new@example.ro", 0, 5*time.Second)
	if !ok || m.Subject != "Linkul tău de autentificare — Casus" {
		t.Fatalf("magic link mail: %+v", m)
	}
	_, frag := e.follow(m.Link)
	u := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token"))
	if u.status != 200 || u.body["email_confirmed_at"] == nil || u.body["user_metadata"].(map[string]any)["name"] != "Nou" {
		t.Fatalf("user: %v", u.body)
	}
	e.expectErr(e.do("POST", "/auth/v1/otp", map[string]any{}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/otp", map[string]any{"email": "bad@"}, ""), 400, "validation_failed")
}

func TestEmailAndSignupLimits(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitEmail = 1; c.RateLimitSignUp = 2 })
	e.signupConfirmed("limit@example.ro", "secret1") // the address's one mail this hour
	e.expectErr(e.do("POST", "/auth/v1/recover", map[string]any{"email": "limit@example.ro"}, ""), 429, "over_email_send_rate_limit")
	// That request used this IP's one recover request of the hour.
	e.expectErr(e.do("POST", "/auth/v1/recover", map[string]any{"email": "other@example.ro"}, ""), 429, "over_request_rate_limit")
	if e.do("POST", "/auth/v1/signup", map[string]any{"email": "two@example.ro", "password": "secret1"}, "").status != 200 {
		t.Fatal("second sign-up refused")
	}
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "three@example.ro", "password": "secret1"}, ""), 429, "over_request_rate_limit")
}

func TestPerAddressMailLimit(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitEmail = 2 })
	e.signupConfirmed("addr@example.ro", "secret1") // one mail to the address
	if r := e.do("POST", "/auth/v1/recover", map[string]any{"email": "addr@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	// The per-IP bucket for recover has one request left; the address has none.
	e.expectErr(e.do("POST", "/auth/v1/recover", map[string]any{"email": "ADDR@example.ro"}, ""), 429, "over_email_send_rate_limit")
}

func TestAutoconfirm(t *testing.T) {
	e := start(t, func(c *config.Config) { c.MailerAutoconfirm = true })
	r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "auto@example.ro", "password": "secret1"}, "")
	if r.status != 200 || r.body["access_token"] == nil || r.body["user"].(map[string]any)["email_confirmed_at"] == nil {
		t.Fatalf("autoconfirm signup: %v", r.body)
	}
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "Auto@example.ro", "password": "secret1"}, ""), 422, "user_already_exists")
	if s := e.do("GET", "/auth/v1/settings", nil, ""); s.body["mailer_autoconfirm"] != true {
		t.Fatal(s.body)
	}
}

func TestAdminBadInputAndBan(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	e.expectErr(e.do("GET", "/auth/v1/admin/users/not-a-uuid", nil, svc), 404, "validation_failed")
	e.expectErr(e.do("GET", "/auth/v1/admin/users/00000000-0000-0000-0000-000000000001", nil, svc), 404, "user_not_found")
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, ""), 401, "no_authorization")
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, "x.y.z"), 403, "bad_jwt")
	e.expectErr(e.do("POST", "/auth/v1/admin/users", `{"email": ["a"]}`, svc), 400, "bad_json")
	e.expectErr(e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "nope"}, svc), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "w@example.ro", "password": "1"}, svc), 422, "weak_password")
	c := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "ban@example.ro", "password": "secret1", "email_confirm": true}, svc)
	id := c.body["id"].(string)
	e.expectErr(e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"ban_duration": "forever"}, svc), 400, "validation_failed")
	if r := e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"ban_duration": "24h"}, svc); r.status != 200 {
		t.Fatal(r.body)
	}
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "ban@example.ro", "password": "secret1"}, ""), 400, "user_banned")
	if r := e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"ban_duration": "none", "password": "secret2"}, svc); r.status != 200 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "ban@example.ro", "password": "secret2"}, ""); r.status != 200 {
		t.Fatalf("after unban: %v", r.body)
	}
	if r := e.do("GET", "/auth/v1/admin/users?page=1&per_page=1", nil, svc); len(r.body["users"].([]any)) != 1 || r.header.Get("X-Total-Count") != "1" {
		t.Fatalf("list: %v", r.body)
	}
}

// Every endpoint answers wrong types, wrong shapes and oversized bodies with a
// GoTrue-shaped 4xx, never a 500 (do fails the test on any 5xx).
func TestMalformedBodiesEverywhere(t *testing.T) {
	e := start(t, func(c *config.Config) { c.MaxBodyBytes = 1024 })
	user := e.signupConfirmed("shape@example.ro", "secret1")["access_token"].(string)
	svc := e.srv.Deps.Keys.ServiceKey
	endpoints := []struct{ method, path, bearer string }{
		{"POST", "/auth/v1/signup", ""}, {"POST", "/auth/v1/token?grant_type=password", ""},
		{"POST", "/auth/v1/token?grant_type=refresh_token", ""}, {"POST", "/auth/v1/token?grant_type=pkce", ""},
		{"PUT", "/auth/v1/user", user}, {"POST", "/auth/v1/recover", ""}, {"POST", "/auth/v1/verify", ""},
		{"POST", "/auth/v1/otp", ""}, {"POST", "/auth/v1/resend", ""}, {"POST", "/auth/v1/admin/users", svc},
	}
	bodies := []string{`{`, `[]`, `"text"`, `{"email": 1, "password": 2, "data": "x", "refresh_token": 3, "type": 4}`, `{"email": "a@b.ro"} trailing`, strings.Repeat(" ", 2000) + "{}"}
	for _, ep := range endpoints {
		for _, b := range bodies {
			r := e.do(ep.method, ep.path, b, ep.bearer)
			if r.status < 400 || r.status >= 500 || r.body["error_code"] == nil || r.body["msg"] == nil {
				t.Errorf("%s %s %.30q: %d %v", ep.method, ep.path, b, r.status, r.body)
			}
		}
	}
	e.expectErr(e.do("PUT", "/auth/v1/user", strings.Repeat("x", 4096), user), 413, "request_too_large")
}

func TestDevOutbox(t *testing.T) {
	e := start(t, func(c *config.Config) { c.SMTPHost = ""; c.DevMailOutbox = true })
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "dev@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	// The mail is sent after the answer: wait for it to land.
	var b []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		res, err := http.Get(e.srv.URL + "/_dev/mail?format=json")
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(b), `"to":"dev@example.ro"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(string(b), "/auth/v1/verify?") {
		t.Fatalf("outbox: %s", b)
	}
	res, _ := http.Get(e.srv.URL + "/_dev/mail")
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), "Confirmă-ți adresa de email") {
		t.Fatalf("outbox page: %d %s", res.StatusCode, b)
	}
	if e.sink.Count("dev@example.ro") != 0 {
		t.Fatal("mail went to SMTP")
	}
}

// The outbox holds sign-in links: it is served only when asked for, and only to the
// machine itself (a forwarded-for header cannot make a remote peer local).
func TestDevOutboxOnlyWhenEnabledAndLocal(t *testing.T) {
	e := start(t, func(c *config.Config) { c.SMTPHost = "" })
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "dev@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	res, err := http.Get(e.srv.URL + "/_dev/mail?format=json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(b), "dev@example.ro") || strings.Contains(string(b), "/auth/v1/verify") {
		t.Fatalf("outbox served without DEV_MAIL_OUTBOX: %d %s", res.StatusCode, b)
	}

	d := e.srv.Deps
	cfg := *d.Config
	cfg.SMTPHost, cfg.DevMailOutbox, cfg.TrustedProxies = "", true, []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}
	d.Config = &cfg
	s, err := gotrue.New(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mux := http.NewServeMux()
	s.Routes(mux)
	for _, peer := range []string{"203.0.113.7:4711", "[2001:db8::1]:4711", "10.0.0.2:80"} {
		req := httptest.NewRequest("GET", "/_dev/mail?format=json", nil)
		req.RemoteAddr = peer
		req.Header.Set("X-Forwarded-For", "127.0.0.1")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code == 200 {
			t.Fatalf("outbox served to %s: %s", peer, rec.Body)
		}
	}
	req := httptest.NewRequest("GET", "/_dev/mail?format=json", nil)
	req.RemoteAddr = "127.0.0.1:4711"
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("outbox refused to loopback: %d", rec.Code)
	}
}

func TestProductionNeedsSMTP(t *testing.T) {
	e := start(t, nil)
	d := e.srv.Deps
	cfg := *d.Config
	cfg.Env, cfg.SMTPHost = "production", ""
	d.Config = &cfg
	if _, err := gotrue.New(t.Context(), d); err == nil || !strings.Contains(err.Error(), "SMTP_HOST") {
		t.Fatalf("production without SMTP: %v", err)
	}
	cfg.SMTPHost = "127.0.0.1"
	if _, err := gotrue.New(t.Context(), d); err != nil {
		t.Fatal(err)
	}
}

// Failed sign-ins are limited per address whatever the client's IP.
func TestFailedSignInsPerAddress(t *testing.T) {
	e := start(t, func(c *config.Config) {
		c.RateLimitSignIn = 2
		c.TrustedProxies = loopbackProxy // the test plays a proxy passing several clients' addresses
	})
	e.signupConfirmed("guess@example.ro", "secret1") // one successful sign-in: not counted
	signIn := func(ip, password string) resp {
		return e.doWith("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "guess@example.ro", "password": password}, map[string]string{"X-Forwarded-For": ip})
	}
	e.expectErr(signIn("10.0.0.1", "wrong1"), 400, "invalid_credentials")
	e.expectErr(signIn("10.0.0.2", "wrong2"), 400, "invalid_credentials")
	e.expectErr(signIn("10.0.0.3", "secret1"), 429, "over_request_rate_limit")
	if r := e.doWith("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "someone@example.ro", "password": "x"}, map[string]string{"X-Forwarded-For": "10.0.0.4"}); r.status != 400 {
		t.Fatalf("another address: %d", r.status)
	}
}

var loopbackProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// With no trusted proxies (the default) X-Forwarded-For is ignored: a client changing it
// on every request stays in its own per-IP bucket, and the session records the peer.
func TestForgedForwardedForDoesNotEscapeLimit(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitSignUp = 2 })
	signUp := func(i int, xff string) resp {
		return e.doWith("POST", "/auth/v1/signup", map[string]any{"email": fmt.Sprintf("spoof%d@example.ro", i), "password": "secret1"},
			map[string]string{"X-Forwarded-For": xff})
	}
	for i, xff := range []string{"198.51.100.1", "198.51.100.2"} {
		if r := signUp(i, xff); r.status != 200 {
			t.Fatalf("sign-up %d: %d %v", i, r.status, r.body)
		}
	}
	e.expectErr(signUp(3, "198.51.100.3"), 429, "over_request_rate_limit")
	e.expectErr(signUp(4, "203.0.113.77, 198.51.100.4"), 429, "over_request_rate_limit")

	// The session's ip column holds the socket peer, not the forged header.
	e2 := start(t, func(c *config.Config) { c.MailerAutoconfirm = true })
	r := e2.doWith("POST", "/auth/v1/signup", map[string]any{"email": "ip@example.ro", "password": "secret1"}, map[string]string{"X-Forwarded-For": "198.51.100.50"})
	if r.status != 200 {
		t.Fatalf("sign-up: %d %v", r.status, r.body)
	}
	if ip := sessionIP(t, e2, "ip@example.ro"); ip != "127.0.0.1" {
		t.Fatalf("session ip %q, want the peer 127.0.0.1", ip)
	}
}

// Behind a trusted proxy the right-most untrusted hop is the client: forged hops to its
// left do not open a new bucket, a different real client does.
func TestTrustedProxyForwardedFor(t *testing.T) {
	e := start(t, func(c *config.Config) {
		c.RateLimitSignUp = 2
		c.MailerAutoconfirm = true
		c.TrustedProxies = loopbackProxy
	})
	signUp := func(email, xff string) resp {
		return e.doWith("POST", "/auth/v1/signup", map[string]any{"email": email, "password": "secret1"}, map[string]string{"X-Forwarded-For": xff})
	}
	for i, xff := range []string{"1.1.1.1, 198.51.100.9", "2.2.2.2, 198.51.100.9"} {
		if r := signUp(fmt.Sprintf("a%d@example.ro", i), xff); r.status != 200 {
			t.Fatalf("sign-up %d: %d %v", i, r.status, r.body)
		}
	}
	e.expectErr(signUp("a3@example.ro", "3.3.3.3, 198.51.100.9"), 429, "over_request_rate_limit")
	if r := signUp("b@example.ro", "198.51.100.10"); r.status != 200 {
		t.Fatalf("another client behind the proxy: %d %v", r.status, r.body)
	}
	if ip := sessionIP(t, e, "b@example.ro"); ip != "198.51.100.10" {
		t.Fatalf("session ip %q, want the forwarded client", ip)
	}
}

func sessionIP(t *testing.T, e *env, email string) string {
	t.Helper()
	var ip string
	err := e.srv.Deps.Owner.QueryRow(t.Context(), `select coalesce(host(s.ip), '') from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1`, email).Scan(&ip)
	if err != nil {
		t.Fatal(err)
	}
	return ip
}

// A token of a deleted user gets GoTrue's 403 user_not_found (supabase-js apps sign out on
// it); a token of an ended session, 403 session_not_found.
func TestTokenOfDeletedUser(t *testing.T) {
	e := start(t, nil)
	s := e.signupConfirmed("gone@example.ro", "secret1")
	access := s["access_token"].(string)
	if r := e.do("GET", "/auth/v1/user", nil, access); r.status != 200 {
		t.Fatalf("user: %v", r.body)
	}
	id := s["user"].(map[string]any)["id"].(string)
	if r := e.do("DELETE", "/auth/v1/admin/users/"+id, nil, e.srv.Deps.Keys.ServiceKey); r.status != 200 {
		t.Fatalf("delete: %v", r.body)
	}
	r := e.do("GET", "/auth/v1/user", nil, access)
	e.expectErr(r, 403, "user_not_found")
	if r.body["msg"] != "User from sub claim in JWT does not exist" {
		t.Fatalf("msg %v", r.body["msg"])
	}
	e.expectErr(e.do("POST", "/auth/v1/logout", nil, access), 403, "user_not_found")
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"data": map[string]any{"x": 1}}, access), 403, "user_not_found")
}
