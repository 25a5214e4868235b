package gotrue_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"casus/server/internal/config"
)

// GoTrue behaviours a stock Supabase app relies on (issue 28), each as GoTrue answers it.
// The cases share one server (each starts with a fresh database otherwise).
func TestIssue28Auth(t *testing.T) {
	shared := start(t, nil)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"AdminRefusesInvalidEmailAsGoTrue", testAdminRefusesInvalidEmailAsGoTrue},
		{"InvitedAtOnInvitedUsers", testInvitedAtOnInvitedUsers},
		{"GenerateLinkShapes", testGenerateLinkShapes},
		{"SignupOfConfirmedAddressHasNoIdentities", testSignupOfConfirmedAddressHasNoIdentities},
		{"MFAAdminListAndDeleteFactors", testMFAAdminListAndDeleteFactors},
		{"DisabledFeaturesAnswerAsGoTrue", testDisabledFeaturesAnswerAsGoTrue},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, &env{t: t, srv: shared.srv, sink: shared.sink}) })
	}
}

// invalidEmail is the address auth-js's own suite uses: GoTrue's format refuses it.
const invalidEmail = "xx:;x@x.x"

// The admin API refuses an address GoTrue's format check refuses, with its message.
func testAdminRefusesInvalidEmailAsGoTrue(t *testing.T, e *env) {
	svc := e.srv.Deps.Keys.ServiceKey
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/auth/v1/admin/users", map[string]any{"email": invalidEmail, "password": "secret1"}},
		{"/auth/v1/invite", map[string]any{"email": invalidEmail}},
		{"/auth/v1/admin/generate_link", map[string]any{"type": "signup", "email": invalidEmail, "password": "password123"}},
		{"/auth/v1/signup", map[string]any{"email": invalidEmail, "password": "secret1"}},
	} {
		r := e.do("POST", c.path, c.body, svc)
		e.expectErr(r, 400, "validation_failed")
		if r.body["msg"] != "Unable to validate email address: invalid format" {
			t.Fatalf("%s: %v", c.path, r.body)
		}
	}
	// Addresses with the characters the format allows still pass.
	if r := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "o'brien+tag@mail.example.ro"}, svc); r.status != 200 {
		t.Fatalf("valid address refused: %v", r.body)
	}
}

// An invited user carries invited_at (GoTrue's field, omitted for others).
func testInvitedAtOnInvitedUsers(t *testing.T, e *env) {
	svc := e.srv.Deps.Keys.ServiceKey
	inv := e.do("POST", "/auth/v1/invite", map[string]any{"email": "invitat@example.ro", "data": map[string]any{"status": "alpha"}}, svc)
	if inv.status != 200 || inv.body["invited_at"] == nil {
		t.Fatalf("invite: %d %v", inv.status, inv.body)
	}
	got := e.do("GET", "/auth/v1/admin/users/"+inv.body["id"].(string), nil, svc)
	if got.body["invited_at"] != inv.body["invited_at"] {
		t.Fatalf("admin get: %v", got.body)
	}
	gen := e.do("POST", "/auth/v1/admin/generate_link", map[string]any{"type": "invite", "email": "gen-inv@example.ro"}, svc)
	if gen.status != 200 || gen.body["invited_at"] == nil {
		t.Fatalf("generate_link invite: %v", gen.body)
	}
	plain := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "plain@example.ro"}, svc)
	if _, ok := plain.body["invited_at"]; ok {
		t.Fatalf("a created user has invited_at: %v", plain.body)
	}
	// The invitee's own GET /user shows it too.
	m := e.mail("invitat@example.ro", 0)
	_, frag := e.follow(m)
	if u := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token")); u.body["invited_at"] == nil {
		t.Fatalf("GET /user: %v", u.body)
	}
}

// generate_link's signup and e-mail change links are shaped as GoTrue's: the action link
// starts with ?token=, names its type and redirect_to; the user carries its metadata or
// new_email.
func testGenerateLinkShapes(t *testing.T, e *env) {
	svc := e.srv.Deps.Keys.ServiceKey
	r := e.do("POST", "/auth/v1/admin/generate_link", map[string]any{"type": "signup", "email": "gl@example.ro", "password": "secret1",
		"data": map[string]any{"status": "alpha"}, "redirect_to": "http://localhost:9999/welcome"}, svc)
	if r.status != 200 {
		t.Fatal(r.body)
	}
	link := r.body["action_link"].(string)
	if !strings.Contains(link, "/verify?token=") || !strings.Contains(link, "type=signup") || !strings.Contains(link, "redirect_to=") {
		t.Fatalf("action_link: %s", link)
	}
	if md := r.body["user_metadata"].(map[string]any); md["status"] != "alpha" || len(md) != 1 {
		t.Fatalf("user_metadata: %v", md)
	}
	for _, k := range []string{"action_link", "email_otp", "hashed_token", "redirect_to", "verification_type"} {
		if _, ok := r.body[k]; !ok {
			t.Fatalf("no %s: %v", k, r.body)
		}
	}
	// Again for the same unconfirmed user: the metadata given is set on it.
	again := e.do("POST", "/auth/v1/admin/generate_link", map[string]any{"type": "signup", "email": "gl@example.ro", "password": "secret1",
		"data": map[string]any{"status": "beta", "plan": "pro"}}, svc)
	if md := again.body["user_metadata"].(map[string]any); again.status != 200 || md["status"] != "beta" || md["plan"] != "pro" || again.body["id"] != r.body["id"] {
		t.Fatalf("second signup link: %d %v", again.status, again.body)
	}
	e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "ch@example.ro", "email_confirm": true}, svc)
	for _, typ := range []string{"email_change_current", "email_change_new"} {
		c := e.do("POST", "/auth/v1/admin/generate_link", map[string]any{"type": typ, "email": "ch@example.ro", "new_email": "nou@example.ro"}, svc)
		link := c.body["action_link"].(string)
		if c.status != 200 || c.body["new_email"] != "nou@example.ro" || c.body["verification_type"] != typ ||
			!strings.Contains(link, "?token=") || !strings.Contains(link, "type=email_change") || !strings.Contains(link, "redirect_to=") {
			t.Fatalf("%s: %d %v", typ, c.status, c.body)
		}
	}
}

// A sign-up of an address that is already confirmed answers a user with no identities,
// which is how Supabase tells apps to detect it; nothing is mailed.
func testSignupOfConfirmedAddressHasNoIdentities(t *testing.T, e *env) {
	svc := e.srv.Deps.Keys.ServiceKey
	created := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "luat@example.ro", "password": "secret1", "email_confirm": true}, svc)
	r := e.do("POST", "/auth/v1/signup", map[string]any{"email": "luat@example.ro", "password": "alta-parola"}, "")
	ids, ok := r.body["identities"].([]any)
	if r.status != 200 || !ok || len(ids) != 0 || r.body["id"] == created.body["id"] || r.body["access_token"] != nil {
		t.Fatalf("sign-up of a confirmed address: %d %v", r.status, r.body)
	}
	fresh := e.do("POST", "/auth/v1/signup", map[string]any{"email": "proaspat@example.ro", "password": "secret1"}, "")
	if ids := fresh.body["identities"].([]any); len(ids) != 1 {
		t.Fatalf("a new sign-up: %v", fresh.body)
	}
}

// getJSON is a GET with the service key whose body may be any JSON value.
func (e *env) getJSON(path string) (int, any) {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
	req.Header.Set("apikey", e.srv.Deps.Keys.ServiceKey)
	req.Header.Set("Authorization", "Bearer "+e.srv.Deps.Keys.ServiceKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		e.t.Fatalf("%s: %s", path, raw)
	}
	return res.StatusCode, v
}

// The MFA admin API: an admin lists a user's factors, renames and deletes one; the
// session the factor raised falls back to aal1.
func testMFAAdminListAndDeleteFactors(t *testing.T, e *env) {
	svc := e.srv.Deps.Keys.ServiceKey
	s := e.signupConfirmed("mfa-admin@example.ro", "secret1")
	access := s["access_token"].(string)
	uid := s["user"].(map[string]any)["id"].(string)

	st, list := e.getJSON("/auth/v1/admin/users/" + uid + "/factors")
	if st != 200 || len(list.([]any)) != 0 {
		t.Fatalf("no factors: %d %v", st, list)
	}
	en := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp"}, access)
	fid := en.body["id"].(string)
	ch := e.do("POST", "/auth/v1/factors/"+fid+"/challenge", nil, access)
	v := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": ch.body["id"], "code": code(t, en.body["totp"].(map[string]any)["secret"].(string))}, access)
	if v.status != 200 {
		t.Fatal(v.body)
	}

	st, list = e.getJSON("/auth/v1/admin/users/" + uid + "/factors")
	fs := list.([]any)
	if st != 200 || len(fs) != 1 || fs[0].(map[string]any)["id"] != fid || fs[0].(map[string]any)["status"] != "verified" {
		t.Fatalf("list: %d %v", st, list)
	}
	up := e.do("PUT", "/auth/v1/admin/users/"+uid+"/factors/"+fid, map[string]any{"friendly_name": "Telefon"}, svc)
	if up.status != 200 || up.body["friendly_name"] != "Telefon" {
		t.Fatalf("update: %d %v", up.status, up.body)
	}

	// Errors: another user's factor, unknown ids, bad ids, a caller that is not admin.
	other := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "alt@example.ro"}, svc).body["id"].(string)
	e.expectErr(e.do("DELETE", "/auth/v1/admin/users/"+other+"/factors/"+fid, nil, svc), 404, "mfa_factor_not_found")
	e.expectErr(e.do("DELETE", "/auth/v1/admin/users/00000000-0000-4000-8000-000000000000/factors/"+fid, nil, svc), 404, "user_not_found")
	e.expectErr(e.do("GET", "/auth/v1/admin/users/00000000-0000-4000-8000-000000000000/factors", nil, svc), 404, "user_not_found")
	e.expectErr(e.do("DELETE", "/auth/v1/admin/users/"+uid+"/factors/x", nil, svc), 404, "validation_failed")
	e.expectErr(e.do("GET", "/auth/v1/admin/users/"+uid+"/factors", nil, access), 403, "not_admin")

	del := e.do("DELETE", "/auth/v1/admin/users/"+uid+"/factors/"+fid, nil, svc)
	if del.status != 200 || del.body["id"] != fid || del.body["factor_type"] != "totp" {
		t.Fatalf("delete: %d %v", del.status, del.body)
	}
	st, list = e.getJSON("/auth/v1/admin/users/" + uid + "/factors")
	if st != 200 || len(list.([]any)) != 0 {
		t.Fatalf("after delete: %v", list)
	}
	if aal, _ := tokenAAL(t, e.refresh(v.body["refresh_token"]).body["access_token"]); aal != "aal1" {
		t.Fatalf("session after the factor went: %s", aal)
	}
}

// Features Casus does not offer answer as a GoTrue with them disabled.
func testDisabledFeaturesAnswerAsGoTrue(t *testing.T, e *env) {
	s := e.signupConfirmed("dis@example.ro", "secret1")
	access := s["access_token"].(string)
	ids := s["user"].(map[string]any)["identities"].([]any)
	idID := ids[0].(map[string]any)["identity_id"].(string)
	want := func(r resp, status int, code, msg string) {
		t.Helper()
		e.expectErr(r, status, code)
		if r.body["msg"] != msg {
			t.Fatalf("want %q, got %v", msg, r.body)
		}
	}
	// Manual linking (off by default): linkIdentity and unlinkIdentity.
	want(e.do("GET", "/auth/v1/user/identities/authorize?provider=google&skip_http_redirect=true", nil, access), 404, "manual_linking_disabled", "Manual linking is disabled")
	want(e.do("DELETE", "/auth/v1/user/identities/"+idID, nil, access), 404, "manual_linking_disabled", "Manual linking is disabled")
	e.expectErr(e.do("GET", "/auth/v1/user/identities/authorize?provider=google", nil, ""), 401, "no_authorization")
	// OAuth sign-in: no provider is enabled.
	want(e.do("GET", "/auth/v1/authorize?provider=github", nil, ""), 400, "validation_failed", "Unsupported provider: provider is not enabled")
	want(e.do("GET", "/auth/v1/authorize?provider=nope", nil, ""), 400, "validation_failed", "Unsupported provider: Provider nope could not be found")
	// signInWithIdToken.
	want(e.do("POST", "/auth/v1/token?grant_type=id_token", map[string]any{"provider": "google", "id_token": "mock-id-token", "nonce": "n"}, ""),
		400, "provider_disabled", `Provider (issuer "https://accounts.google.com") is not enabled`)
	if r := e.do("POST", "/auth/v1/token?grant_type=id_token", map[string]any{"provider": "google"}, ""); r.status != 400 || r.body["error_description"] != "id_token required" {
		t.Fatalf("id_token required: %v", r.body)
	}
	// SSO / SAML.
	want(e.do("POST", "/auth/v1/sso", map[string]any{"provider_id": "valid-provider-id"}, ""), 404, "saml_provider_disabled", "SAML 2.0 is disabled")
	want(e.do("GET", "/auth/v1/sso/saml/metadata", nil, ""), 404, "saml_provider_disabled", "SAML 2.0 is disabled")
	// Web3.
	want(e.do("POST", "/auth/v1/token?grant_type=web3", map[string]any{"chain": "solana", "message": "m", "signature": "s"}, ""), 422, "web3_provider_disabled", "Web3 provider is disabled")
	// Phone: OTP, password, verification, resend.
	want(e.do("POST", "/auth/v1/otp", map[string]any{"phone": "+40712345678"}, ""), 400, "phone_provider_disabled", "Unsupported phone provider")
	want(e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"phone": "+40712345678", "password": "secret1"}, ""), 422, "phone_provider_disabled", "Phone logins are disabled")
	want(e.do("POST", "/auth/v1/verify", map[string]any{"phone": "+40712345678", "token": "123456", "type": "sms"}, ""), 403, "otp_expired", "Token has expired or is invalid")
	want(e.do("POST", "/auth/v1/verify", map[string]any{"phone": "+40712345678-invalid", "token": "123456", "type": "sms"}, ""), 400, "validation_failed", "Invalid phone number format (E.164 required)")
	want(e.do("POST", "/auth/v1/resend", map[string]any{"phone": "+40712345678", "type": "sms"}, ""), 400, "phone_provider_disabled", "Phone logins are disabled")
}

// With MANUAL_LINKING_ENABLED linkIdentity reaches the provider, which is not enabled.
func TestLinkIdentityWithManualLinkingEnabled(t *testing.T) {
	e := start(t, func(c *config.Config) { c.ManualLinkingEnabled = true })
	s := e.signupConfirmed("link@example.ro", "secret1")
	r := e.do("GET", "/auth/v1/user/identities/authorize?"+url.Values{"provider": {"google"}}.Encode(), nil, s["access_token"].(string))
	e.expectErr(r, 400, "validation_failed")
	if r.body["msg"] != "Unsupported provider: provider is not enabled" {
		t.Fatal(r.body)
	}
}
