package gotrue_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/config"
	"casus/server/internal/mail/smtpsink"
	"casus/server/internal/testutil/testserver"
)

type env struct {
	t    *testing.T
	srv  *testserver.Server
	sink *smtpsink.Sink
}

func start(t *testing.T, tweak func(*config.Config)) *env {
	sink, err := smtpsink.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sink.Close() })
	host, port, _ := net.SplitHostPort(sink.Addr)
	srv := testserver.Start(t, func(c *config.Config) {
		c.SMTPHost = host
		c.SMTPPort, _ = strconv.Atoi(port)
		c.RateLimitEnabled = true
		if tweak != nil {
			tweak(c)
		}
	})
	return &env{t: t, srv: srv, sink: sink}
}

type resp struct {
	status int
	body   map[string]any
	header http.Header
}

func (e *env) do(method, path string, body any, bearer string) resp {
	e.t.Helper()
	var h map[string]string
	if bearer != "" {
		h = map[string]string{"Authorization": "Bearer " + bearer}
	}
	return e.doWith(method, path, body, h)
}

// doWith sends a request with the anon apikey and extra headers; any 5xx fails the test.
func (e *env) doWith(method, path string, body any, headers map[string]string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{status: res.StatusCode, header: res.Header}
	_ = json.Unmarshal(raw, &out.body)
	if res.StatusCode >= 500 {
		e.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return out
}

func (e *env) expectErr(r resp, status int, code string) {
	e.t.Helper()
	if r.status != status || r.body["error_code"] != code || r.body["msg"] == nil || r.body["code"] != float64(status) {
		e.t.Fatalf("want %d %s, got %d %v", status, code, r.status, r.body)
	}
}

// follow opens a mailed link and returns the redirect's fragment values.
func (e *env) follow(link string) (*url.URL, url.Values) {
	e.t.Helper()
	u, _ := url.Parse(link)
	r := e.do("GET", u.RequestURI(), nil, "")
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("verify: %d %v", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	frag, _ := url.ParseQuery(loc.Fragment)
	return loc, frag
}

func (e *env) signupConfirmed(email, password string) map[string]any {
	e.t.Helper()
	r := e.do("POST", "/auth/v1/signup", map[string]any{"email": email, "password": password}, "")
	if r.status != 200 {
		e.t.Fatalf("signup: %d %v", r.status, r.body)
	}
	m, ok := e.sink.WaitFor(email, 0, 5*time.Second)
	if !ok {
		e.t.Fatal("no confirmation mail")
	}
	e.follow(m.Link)
	tok := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": email, "password": password}, "")
	if tok.status != 200 {
		e.t.Fatalf("sign in: %v", tok.body)
	}
	return tok.body
}

func TestSignupConfirmSignIn(t *testing.T) {
	e := start(t, nil)
	meta := map[string]any{"name": "Ana Pop", "username": "ana_pop", "university_code": "UB"}
	r := e.do("POST", "/auth/v1/signup?redirect_to="+url.QueryEscape(e.srv.URL+"/dashboard"), map[string]any{"email": "Ana@Example.ro", "password": "secret1", "data": meta}, "")
	if r.status != 200 || r.body["access_token"] != nil || r.body["email"] != "ana@example.ro" || r.body["user_metadata"].(map[string]any)["username"] != "ana_pop" {
		t.Fatalf("signup: %d %v", r.status, r.body)
	}
	if ids := r.body["identities"].([]any); len(ids) != 1 {
		t.Fatalf("identities: %v", ids)
	}
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "ana@example.ro", "password": "secret1"}, ""), 400, "email_not_confirmed")

	m, ok := e.sink.WaitFor("ana@example.ro", 0, 5*time.Second)
	if !ok || !strings.Contains(m.Data, "Confirm") || m.Link == "" {
		t.Fatalf("mail: %v", m)
	}
	loc, frag := e.follow(m.Link)
	if loc.Path != "/dashboard" || frag.Get("access_token") == "" || frag.Get("refresh_token") == "" || frag.Get("type") != "signup" || frag.Get("token_type") != "bearer" {
		t.Fatalf("redirect %s", loc)
	}
	// The link is single-use.
	_, again := e.follow(m.Link)
	if again.Get("error_code") != "otp_expired" {
		t.Fatalf("reused link: %v", again)
	}

	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "ana@example.ro", "password": "wrong!!"}, ""), 400, "invalid_credentials")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "nobody@example.ro", "password": "wrong!!"}, ""), 400, "invalid_credentials")
	tok := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "ana@example.ro", "password": "secret1"}, "")
	if tok.status != 200 || tok.body["token_type"] != "bearer" || tok.body["expires_in"] != float64(3600) {
		t.Fatalf("token: %v", tok.body)
	}
	access := tok.body["access_token"].(string)
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(access, claims, func(*jwt.Token) (any, error) { return []byte(testserver.Secret), nil }); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sub", "aud", "role", "email", "exp", "iat", "session_id", "app_metadata", "user_metadata", "aal", "amr", "is_anonymous"} {
		if _, ok := claims[k]; !ok {
			t.Errorf("claim %s missing", k)
		}
	}
	u := e.do("GET", "/auth/v1/user", nil, access)
	if u.status != 200 || u.body["email"] != "ana@example.ro" || u.body["email_confirmed_at"] == nil {
		t.Fatalf("user: %v", u.body)
	}

	// A second sign-up with the same address answers GoTrue's sanitized user (an invented
	// id, no identities) and sends nothing.
	before := e.sink.Count("ana@example.ro")
	dup := e.do("POST", "/auth/v1/signup", map[string]any{"email": "ana@example.ro", "password": "another1"}, "")
	if dup.status != 200 || dup.body["id"] == u.body["id"] || len(dup.body["identities"].([]any)) != 0 || dup.body["email_confirmed_at"] != nil {
		t.Fatalf("duplicate signup: %v", dup.body)
	}
	time.Sleep(100 * time.Millisecond)
	if e.sink.Count("ana@example.ro") != before {
		t.Fatal("duplicate signup sent a mail")
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	e := start(t, nil)
	s := e.signupConfirmed("ion@example.ro", "secret1")
	r1 := s["refresh_token"].(string)
	n1 := e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": r1}, "")
	if n1.status != 200 || n1.body["refresh_token"] == r1 {
		t.Fatalf("refresh: %v", n1.body)
	}
	r2 := n1.body["refresh_token"].(string)
	// Within the reuse interval the rotated token yields the current one (two tabs).
	again := e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": r1}, "")
	if again.status != 200 || again.body["refresh_token"] != r2 {
		t.Fatalf("reuse within interval: %v", again.body)
	}
	n2 := e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": r2}, "")
	if n2.status != 200 {
		t.Fatal(n2.body)
	}
	// Past the interval, presenting a rotated token ends the whole session.
	if _, err := e.srv.Deps.Owner.Exec(t.Context(), "update auth.refresh_tokens set updated_at = now() - interval '1 minute' where revoked"); err != nil {
		t.Fatal(err)
	}
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": r1}, ""), 400, "refresh_token_already_used")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": n2.body["refresh_token"]}, ""), 400, "refresh_token_not_found")
	e.expectErr(e.do("GET", "/auth/v1/user", nil, n2.body["access_token"].(string)), 403, "session_not_found")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": "nope"}, ""), 400, "refresh_token_not_found")
}

func TestPasswordChangeLogoutAndRecovery(t *testing.T) {
	e := start(t, nil)
	s := e.signupConfirmed("maria@example.ro", "secret1")
	access := s["access_token"].(string)
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "123"}, access), 422, "weak_password")
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"email": "other@example.ro"}, access), 422, "email_change_not_supported")
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "newsecret"}, access); r.status != 200 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/auth/v1/logout?scope=local", nil, access); r.status != 204 {
		t.Fatalf("logout: %d", r.status)
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, access), 403, "session_not_found")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "maria@example.ro", "password": "secret1"}, ""), 400, "invalid_credentials")

	// Recovery: a mail for a known address, the same answer for an unknown one.
	redirect := e.srv.URL + "/reset-password"
	if r := e.do("POST", "/auth/v1/recover?redirect_to="+url.QueryEscape(redirect), map[string]any{"email": "maria@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/auth/v1/recover", map[string]any{"email": "ghost@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, ok := e.sink.WaitFor("maria@example.ro", 1, 5*time.Second)
	if !ok || !strings.Contains(m.Data, "parol") {
		t.Fatal("no recovery mail")
	}
	loc, frag := e.follow(m.Link)
	if loc.Path != "/reset-password" || frag.Get("type") != "recovery" {
		t.Fatalf("recovery redirect: %s", loc)
	}
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "third-secret"}, frag.Get("access_token")); r.status != 200 {
		t.Fatal(r.body)
	}
	if r := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "maria@example.ro", "password": "third-secret"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	// Outside the allow-list: the mail is sent, and its link lands on SITE_URL.
	if r := e.do("POST", "/auth/v1/recover?redirect_to="+url.QueryEscape("https://evil.example.com/x"), map[string]any{"email": "maria@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, ok = e.sink.WaitFor("maria@example.ro", 2, 5*time.Second)
	if !ok || strings.Contains(m.Link, "evil") {
		t.Fatalf("recovery with a foreign redirect: %v %s", ok, m.Link)
	}
}

func TestBadInput(t *testing.T) {
	e := start(t, func(c *config.Config) { c.MaxBodyBytes = 2048 })
	e.expectErr(e.do("POST", "/auth/v1/signup", "{not json", ""), 400, "bad_json")
	e.expectErr(e.do("POST", "/auth/v1/signup", `{"email": 5, "password": "secret1"}`, ""), 400, "bad_json")
	// Neither an e-mail nor a phone number is an anonymous sign-in in GoTrue (off here).
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"password": "secret1"}, ""), 422, "anonymous_provider_disabled")
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "nu-e-email", "password": "secret1"}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "a@b.ro"}, ""), 400, "validation_failed")
	r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "a@b.ro", "password": "12345"}, "")
	e.expectErr(r, 422, "weak_password")
	if r.body["msg"] != "Password should be at least 6 characters." {
		t.Fatalf("message: %v", r.body["msg"])
	}
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "a@b.ro", "password": strings.Repeat("x", 5000)}, ""), 413, "request_too_large")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=magic", map[string]any{}, ""), 400, "unsupported_grant_type")
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "a@b.ro"}, ""), 400, "validation_failed")
	e.expectErr(e.do("GET", "/auth/v1/user", nil, ""), 401, "no_authorization")
	e.expectErr(e.do("GET", "/auth/v1/user", nil, "garbage"), 403, "bad_jwt")
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "x", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	e.expectErr(e.do("GET", "/auth/v1/user", nil, none), 403, "bad_jwt")
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "x", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte("not-the-secret-not-the-secret-xx"))
	e.expectErr(e.do("GET", "/auth/v1/user", nil, forged), 403, "bad_jwt")
	expired, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "x", "role": "authenticated", "exp": time.Now().Add(-time.Hour).Unix()}).SignedString([]byte(testserver.Secret))
	r = e.do("GET", "/auth/v1/user", nil, expired)
	e.expectErr(r, 403, "bad_jwt")
	if !strings.Contains(r.body["msg"].(string), "expired") {
		t.Fatal(r.body)
	}
	e.expectErr(e.do("GET", "/auth/v1/verify?token=nope&type=bogus", nil, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/logout?scope=weird", nil, e.signupConfirmed("z@b.ro", "secret1")["access_token"].(string)), 400, "validation_failed")

	// Without an apikey nothing answers.
	req, _ := http.NewRequest("GET", e.srv.URL+"/auth/v1/settings", nil)
	res, _ := http.DefaultClient.Do(req)
	if res.StatusCode != 401 {
		t.Fatalf("no apikey: %d", res.StatusCode)
	}
}

func TestRateLimits(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitSignIn = 3; c.RateLimitEmail = 2 })
	for i := 0; i < 3; i++ {
		e.expectErr(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "x@b.ro", "password": "secret1"}, ""), 400, "invalid_credentials")
	}
	r := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "x@b.ro", "password": "secret1"}, "")
	e.expectErr(r, 429, "over_request_rate_limit")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

func TestAdminAPIAndOTP(t *testing.T) {
	e := start(t, nil)
	admin := func(method, path string, body any) resp {
		return e.do(method, path, body, e.srv.Deps.Keys.ServiceKey)
	}
	c := admin("POST", "/auth/v1/admin/users", map[string]any{"email": "prof@example.ro", "password": "secret1", "email_confirm": true, "user_metadata": map[string]any{"name": "Prof"}})
	if c.status != 200 || c.body["email_confirmed_at"] == nil {
		t.Fatal(c.body)
	}
	id := c.body["id"].(string)
	if r := admin("GET", "/auth/v1/admin/users/"+id, nil); r.body["email"] != "prof@example.ro" {
		t.Fatal(r.body)
	}
	if r := admin("GET", "/auth/v1/admin/users", nil); len(r.body["users"].([]any)) != 1 {
		t.Fatal(r.body)
	}
	if r := admin("PUT", "/auth/v1/admin/users/"+id, map[string]any{"user_metadata": map[string]any{"name": "Profesor"}}); r.body["user_metadata"].(map[string]any)["name"] != "Profesor" {
		t.Fatal(r.body)
	}
	e.expectErr(admin("POST", "/auth/v1/admin/users", map[string]any{"email": "prof@example.ro", "password": "secret1"}), 422, "email_exists")
	// A user token is not an admin.
	tok := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "prof@example.ro", "password": "secret1"}, "")
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, tok.body["access_token"].(string)), 403, "not_admin")
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, e.srv.Deps.Keys.AnonKey), 403, "not_admin")

	// Magic link for an existing address signs in.
	if r := e.do("POST", "/auth/v1/otp", map[string]any{"email": "prof@example.ro"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	m, ok := e.sink.WaitFor("prof@example.ro", 0, 5*time.Second)
	if !ok {
		t.Fatal("no magic link")
	}
	_, frag := e.follow(m.Link)
	if frag.Get("type") != "magiclink" || frag.Get("access_token") == "" {
		t.Fatalf("magic link: %v", frag)
	}
	if r := admin("DELETE", "/auth/v1/admin/users/"+id, nil); r.status != 200 {
		t.Fatal(r.body)
	}
	e.expectErr(admin("GET", "/auth/v1/admin/users/"+id, nil), 404, "user_not_found")
	if r := e.do("GET", "/auth/v1/settings", nil, ""); r.body["external"].(map[string]any)["email"] != true {
		t.Fatal(r.body)
	}
	if r := e.do("GET", "/auth/v1/health", nil, ""); r.status != 200 {
		t.Fatal(r.body)
	}
}

func TestPKCE(t *testing.T) {
	e := start(t, nil)
	verifier := "a-code-verifier-of-sufficient-length-0123456789"
	// s256 challenge of the verifier
	challenge := s256(verifier)
	r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "pk@example.ro", "password": "secret1", "code_challenge": challenge, "code_challenge_method": "s256"}, "")
	if r.status != 200 {
		t.Fatal(r.body)
	}
	m, _ := e.sink.WaitFor("pk@example.ro", 0, 5*time.Second)
	loc, _ := e.follow(m.Link)
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", loc)
	}
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": "wrong"}, ""), 403, "bad_code_verifier")
	// The code was consumed by the failed attempt: PKCE codes are single-use.
	e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, ""), 404, "flow_state_not_found")
}
