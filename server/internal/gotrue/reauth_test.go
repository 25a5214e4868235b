package gotrue_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"casus/server/internal/config"
)

var nonceRe = regexp.MustCompile(`\b\d{6}\b`)

// nonce waits for the n-th mail (0-based) to the address and returns its six-digit code.
func (e *env) nonce(to string, n int) string {
	e.t.Helper()
	m, ok := e.sink.WaitFor(to, n, 10*time.Second)
	if !ok {
		e.t.Fatalf("mail %d to %s never arrived", n, to)
	}
	code := nonceRe.FindString(m.Text)
	if code == "" {
		e.t.Fatalf("no code in %q", m.Text)
	}
	return code
}

// With SECURE_PASSWORD_CHANGE, a session older than a day changes the password only with
// the nonce GET /reauthenticate mailed, once; a fresh session needs none (GoTrue's rule).
func TestReauthenticationForPasswordChange(t *testing.T) {
	e := start(t, func(c *config.Config) { c.SecurePasswordChange = true })
	const addr = "reauth@example.ro"
	e.signupConfirmed(addr, "parola-veche")
	s := e.signIn(addr, "parola-veche")
	access := s.body["access_token"].(string)
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-1"}, access); r.status != 200 {
		t.Fatalf("fresh session: %d %v", r.status, r.body)
	}
	age := func() {
		e.exec("update auth.sessions set created_at = now() - interval '25 hours' where user_id = (select id from auth.users where email = $1)", addr)
	}
	age()
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-2"}, access), 400, "reauthentication_needed")
	// No nonce was ever sent: any nonce is invalid.
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-2", "nonce": "123456"}, access), 422, "reauthentication_not_valid")

	if r := e.do("GET", "/auth/v1/reauthenticate", nil, access); r.status != 200 || len(r.body) != 0 {
		t.Fatalf("reauthenticate: %d %v", r.status, r.body)
	}
	nonce := e.nonce(addr, 1) // mail 0 was the confirmation
	e.expectErr(e.do("GET", "/auth/v1/reauthenticate", nil, access), 429, "over_email_send_rate_limit")
	wrong := "000000"
	if nonce == wrong {
		wrong = "111111"
	}
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-2", "nonce": wrong}, access), 422, "reauthentication_not_valid")
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-2", "nonce": nonce}, access); r.status != 200 {
		t.Fatalf("with the nonce: %d %v", r.status, r.body)
	}
	if r := e.signIn(addr, "parola-noua-2"); r.status != 200 {
		t.Fatalf("sign-in with the new password: %d %v", r.status, r.body)
	}
	// The nonce is used up.
	age()
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua-3", "nonce": nonce}, access), 422, "reauthentication_not_valid")
	e.expectErr(e.do("GET", "/auth/v1/reauthenticate", nil, ""), 401, "no_authorization")
}

// Without SECURE_PASSWORD_CHANGE (the default) an old session needs no nonce; a user
// without an address cannot reauthenticate.
func TestReauthenticationOffAndWithoutAddress(t *testing.T) {
	e := start(t, func(c *config.Config) { c.AnonymousUsersEnabled = true })
	const addr = "fara-reauth@example.ro"
	e.signupConfirmed(addr, "parola-veche")
	s := e.signIn(addr, "parola-veche")
	e.exec("update auth.sessions set created_at = now() - interval '25 hours' where user_id = (select id from auth.users where email = $1)", addr)
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua"}, s.body["access_token"].(string)); r.status != 200 {
		t.Fatalf("old session, setting off: %d %v", r.status, r.body)
	}
	a := e.do("POST", "/auth/v1/signup", nil, "")
	e.expectErr(e.do("GET", "/auth/v1/reauthenticate", nil, a.body["access_token"].(string)), 400, "validation_failed")
}

// DELETE /user/identities/{id} as GoTrue: off unless MANUAL_LINKING_ENABLED; the last
// identity stays; only the caller's own identities; providers follow what remains.
func TestUnlinkIdentity(t *testing.T) {
	off := start(t, nil)
	off.signupConfirmed("unlink-off@example.ro", "secret1")
	tok := off.signIn("unlink-off@example.ro", "secret1").body["access_token"].(string)
	off.expectErr(off.do("DELETE", "/auth/v1/user/identities/00000000-0000-0000-0000-000000000000", nil, tok), 404, "manual_linking_disabled")

	e := start(t, func(c *config.Config) { c.ManualLinkingEnabled = true })
	e.signupConfirmed("unlink@example.ro", "secret1")
	e.signupConfirmed("other@example.ro", "secret1")
	s := e.signIn("unlink@example.ro", "secret1")
	access := s.body["access_token"].(string)
	ids := s.body["user"].(map[string]any)["identities"].([]any)
	emailID := ids[0].(map[string]any)["identity_id"].(string)
	e.expectErr(e.do("DELETE", "/auth/v1/user/identities/"+emailID, nil, access), 422, "single_identity_not_deletable")
	e.expectErr(e.do("DELETE", "/auth/v1/user/identities/nu-e-uuid", nil, access), 404, "validation_failed")

	// A second identity (Casus has no OAuth, so it is added here as one would be).
	e.exec(`insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
		select 'gh-1', id, '{"sub": "gh-1"}', 'github', now(), now() from auth.users where email = 'unlink@example.ro'`)
	e.exec(`update auth.users set raw_app_meta_data = '{"provider": "email", "providers": ["email", "github"]}' where email = 'unlink@example.ro'`)
	var otherID, ghID string
	if err := e.srv.Deps.Owner.QueryRow(t.Context(), `select i.id::text from auth.identities i join auth.users u on u.id = i.user_id where u.email = 'other@example.ro'`).Scan(&otherID); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Deps.Owner.QueryRow(t.Context(), `select id::text from auth.identities where provider = 'github'`).Scan(&ghID); err != nil {
		t.Fatal(err)
	}
	e.expectErr(e.do("DELETE", "/auth/v1/user/identities/"+otherID, nil, access), 422, "identity_not_found")
	e.expectErr(e.do("DELETE", "/auth/v1/user/identities/00000000-0000-0000-0000-000000000001", nil, access), 422, "identity_not_found")
	if r := e.do("DELETE", "/auth/v1/user/identities/"+ghID, nil, access); r.status != 200 || len(r.body) != 0 {
		t.Fatalf("unlink: %d %v", r.status, r.body)
	}
	g := e.do("GET", "/auth/v1/user", nil, access)
	left := g.body["identities"].([]any)
	providers := g.body["app_metadata"].(map[string]any)["providers"].([]any)
	if len(left) != 1 || left[0].(map[string]any)["provider"] != "email" || len(providers) != 1 || providers[0] != "email" {
		t.Fatalf("after unlink: %v", g.body)
	}
	e.expectErr(e.do("DELETE", "/auth/v1/user/identities/"+emailID, nil, access), 422, "single_identity_not_deletable")
	if n := e.count("select count(*) from auth.identities"); n != 2 {
		t.Fatalf("%d identities left, want 2 (one per user)", n)
	}
}

// Issue 32: the nonce is compared before any hashing (a wrong nonce with the current
// password is refused as a wrong nonce, not judged "same password" by a bcrypt), every
// wrong nonce counts, and the fifth voids it: the right one no longer works.
func TestReauthenticationNonceGuessing(t *testing.T) {
	e := start(t, func(c *config.Config) { c.SecurePasswordChange = true })
	const addr = "ghicit@example.ro"
	e.signupConfirmed(addr, "parola-veche")
	access := e.signIn(addr, "parola-veche").body["access_token"].(string)
	e.exec("update auth.sessions set created_at = now() - interval '25 hours' where user_id = (select id from auth.users where email = $1)", addr)
	if r := e.do("GET", "/auth/v1/reauthenticate", nil, access); r.status != 200 {
		t.Fatalf("reauthenticate: %d %v", r.status, r.body)
	}
	nonce := e.nonce(addr, 1)
	wrong := func(i int) string {
		g := fmt.Sprintf("%06d", i)
		if g == nonce {
			g = fmt.Sprintf("%06d", i+500000)
		}
		return g
	}
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-veche", "nonce": wrong(1)}, access), 422, "reauthentication_not_valid")
	for i := 2; i <= 5; i++ {
		e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua", "nonce": wrong(i)}, access), 422, "reauthentication_not_valid")
	}
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"password": "parola-noua", "nonce": nonce}, access), 422, "reauthentication_not_valid")
	if r := e.signIn(addr, "parola-veche"); r.status != 200 {
		t.Fatalf("the password changed after five wrong nonces: %d %v", r.status, r.body)
	}
}

// PUT /user is limited per IP like GoTrue's User limiter (RATE_LIMIT_OTP per 5 minutes).
func TestUpdateUserIsRateLimited(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitEnabled, c.RateLimitOTP = true, 3 })
	const addr = "limita-put@example.ro"
	e.signupConfirmed(addr, "parola-veche")
	access := e.signIn(addr, "parola-veche").body["access_token"].(string)
	for i := range 3 {
		if r := e.do("PUT", "/auth/v1/user", map[string]any{"data": map[string]any{"n": i}}, access); r.status != 200 {
			t.Fatalf("update %d: %d %v", i, r.status, r.body)
		}
	}
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"data": map[string]any{"n": 4}}, access), 429, "over_request_rate_limit")
}
