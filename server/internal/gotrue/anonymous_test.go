package gotrue_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"casus/server/internal/config"
)

func anonymousOn(c *config.Config) { c.AnonymousUsersEnabled = true }

// signInAnonymously is off by default, with GoTrue's error; settings say so.
func TestAnonymousSignInsOffByDefault(t *testing.T) {
	e := start(t, nil)
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{}, ""), 422, "anonymous_provider_disabled")
	e.expectErr(e.do("POST", "/auth/v1/signup", "", ""), 422, "anonymous_provider_disabled")
	if r := e.do("GET", "/auth/v1/settings", nil, ""); r.body["external"].(map[string]any)["anonymous_users"] != false {
		t.Fatalf("settings: %v", r.body)
	}
	if n := e.count("select count(*) from auth.users"); n != 0 {
		t.Fatalf("%d users made", n)
	}
	// A phone number is a phone sign-up, which Casus does not offer (GoTrue's answer with
	// the phone provider off), not an anonymous one.
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"phone": "+40700000000", "password": "secret1"}, ""), 400, "phone_provider_disabled")
}

func (e *env) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.srv.Deps.Owner.QueryRow(e.t.Context(), sql, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// An anonymous user: a session whose token and user say is_anonymous, no e-mail, no
// identity, the amr method "anonymous"; GET /user and a refresh keep saying so.
func TestAnonymousSignIn(t *testing.T) {
	e := start(t, anonymousOn)
	if r := e.do("GET", "/auth/v1/settings", nil, ""); r.body["external"].(map[string]any)["anonymous_users"] != true {
		t.Fatalf("settings: %v", r.body)
	}
	r := e.do("POST", "/auth/v1/signup", map[string]any{"data": map[string]any{"theme": "dark"}}, "")
	if r.status != 200 || r.body["access_token"] == nil || r.body["refresh_token"] == nil {
		t.Fatalf("anonymous sign-in: %d %v", r.status, r.body)
	}
	user := r.body["user"].(map[string]any)
	if user["is_anonymous"] != true || user["email"] != "" || len(user["identities"].([]any)) != 0 ||
		user["user_metadata"].(map[string]any)["theme"] != "dark" || user["role"] != "authenticated" {
		t.Fatalf("user: %v", user)
	}
	if am := user["app_metadata"].(map[string]any); len(am) != 0 {
		t.Fatalf("app_metadata of an anonymous user: %v", am)
	}
	claims := payload(t, r.body["access_token"].(string))
	if string(claims["is_anonymous"]) != "true" || string(claims["role"]) != `"authenticated"` || string(claims["email"]) != "" && string(claims["email"]) != `""` {
		t.Fatalf("claims: %v", claims)
	}
	expectAMR(t, amrOf(t, r.body["access_token"]), "anonymous", time.Now().Add(-time.Minute))
	access := r.body["access_token"].(string)
	if g := e.do("GET", "/auth/v1/user", nil, access); g.status != 200 || g.body["is_anonymous"] != true || g.body["id"] != user["id"] {
		t.Fatalf("GET /user: %d %v", g.status, g.body)
	}
	ref := e.refresh(r.body["refresh_token"])
	if ref.status != 200 || string(payload(t, ref.body["access_token"].(string))["is_anonymous"]) != "true" {
		t.Fatalf("refresh: %d %v", ref.status, ref.body)
	}
	// An anonymous user has no password to set without an address.
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "secret1"}, access), 422, "validation_failed")
}

// Anonymous sign-ins have their own per-IP limit (RATE_LIMIT_ANONYMOUS_USERS), apart
// from e-mail sign-ups.
func TestAnonymousSignInLimit(t *testing.T) {
	e := start(t, func(c *config.Config) { anonymousOn(c); c.RateLimitAnonymous = 2; c.RateLimitSignUp = 100 })
	for i := range 2 {
		if r := e.do("POST", "/auth/v1/signup", nil, ""); r.status != 200 {
			t.Fatalf("sign-in %d: %d %v", i, r.status, r.body)
		}
	}
	e.expectErr(e.do("POST", "/auth/v1/signup", nil, ""), 429, "over_request_rate_limit")
	// E-mail sign-ups are counted apart.
	if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "limita@example.ro", "password": "secret1"}, ""); r.status != 200 {
		t.Fatalf("e-mail sign-up after the anonymous limit: %d %v", r.status, r.body)
	}
}

// An anonymous user becomes permanent, with the same id, by adding an address (and a
// password) and following the link mailed to it: the user is confirmed, no longer
// anonymous, has an e-mail identity and can sign in with the password.
func TestAnonymousConversion(t *testing.T) {
	e := start(t, anonymousOn)
	r := e.do("POST", "/auth/v1/signup", nil, "")
	access, id := r.body["access_token"].(string), r.body["user"].(map[string]any)["id"]
	// An address already taken is refused.
	e.signupConfirmed("ocupat@example.ro", "secret1")
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"email": "ocupat@example.ro"}, access), 422, "email_exists")
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"email": "nu-e-adresa"}, access), 400, "validation_failed")

	const addr = "Vizitator@Example.ro"
	u := e.do("PUT", "/auth/v1/user", map[string]any{"email": addr, "password": "parola-noua"}, access)
	if u.status != 200 || u.body["is_anonymous"] != true || u.body["new_email"] != "vizitator@example.ro" || u.body["email"] != "" {
		t.Fatalf("update: %d %v", u.status, u.body)
	}
	// Not yet permanent: no sign-in with the address until it is confirmed.
	e.expectErr(e.signIn(addr, "parola-noua"), 400, "invalid_credentials")
	link := e.mail("vizitator@example.ro", 0)
	if link == "" || !regexp.MustCompile(`type=email_change`).MatchString(link) {
		t.Fatalf("link %q", link)
	}
	_, frag := e.follow(link)
	if frag.Get("access_token") == "" || frag.Get("type") != "email_change" {
		t.Fatalf("fragment: %v", frag)
	}
	claims := payload(t, frag.Get("access_token"))
	if string(claims["is_anonymous"]) != "false" || string(claims["email"]) != `"vizitator@example.ro"` {
		t.Fatalf("claims after conversion: %s %s", claims["is_anonymous"], claims["email"])
	}
	var sub string
	_ = json.Unmarshal(claims["sub"], &sub)
	if sub != id {
		t.Fatalf("conversion changed the user id: %s -> %s", id, sub)
	}
	g := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token"))
	ids := g.body["identities"].([]any)
	am := g.body["app_metadata"].(map[string]any)
	if g.body["is_anonymous"] != false || g.body["email_confirmed_at"] == nil || len(ids) != 1 ||
		ids[0].(map[string]any)["provider"] != "email" || am["provider"] != "email" || g.body["new_email"] != nil {
		t.Fatalf("user after conversion: %v", g.body)
	}
	s := e.signIn(addr, "parola-noua")
	if s.status != http.StatusOK || s.body["user"].(map[string]any)["id"] != id {
		t.Fatalf("sign-in after conversion: %d %v", s.status, s.body)
	}
	// A permanent user's address is still changed by an administrator only.
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"email": "alta@example.ro"}, s.body["access_token"].(string)), 422, "email_change_not_supported")
}

// With MAILER_AUTOCONFIRM the address is taken at once, as a sign-up would be.
func TestAnonymousConversionAutoconfirm(t *testing.T) {
	e := start(t, func(c *config.Config) { anonymousOn(c); c.MailerAutoconfirm = true })
	r := e.do("POST", "/auth/v1/signup", nil, "")
	access := r.body["access_token"].(string)
	u := e.do("PUT", "/auth/v1/user", map[string]any{"email": "direct@example.ro", "password": "secret1"}, access)
	if u.status != 200 || u.body["is_anonymous"] != false || u.body["email"] != "direct@example.ro" || u.body["email_confirmed_at"] == nil {
		t.Fatalf("update: %d %v", u.status, u.body)
	}
	if s := e.signIn("direct@example.ro", "secret1"); s.status != 200 || s.body["user"].(map[string]any)["id"] != r.body["user"].(map[string]any)["id"] {
		t.Fatalf("sign-in: %d %v", s.status, s.body)
	}
}
