package gotrue_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// roleToken is an HS256 token of the project with the given role.
func roleToken(t *testing.T, role string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": role, "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(testserver.Secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAdminCreateUserProviderAndEmail(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	r := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "prov@example.ro", "password": "secret1", "email_confirm": true, "app_metadata": map[string]any{"plan": "pro"}}, svc)
	if r.status != 200 {
		t.Fatal(r.body)
	}
	am := r.body["app_metadata"].(map[string]any)
	if am["provider"] != "email" || am["plan"] != "pro" {
		t.Fatalf("app_metadata: %v", am)
	}
	if ps, _ := am["providers"].([]any); len(ps) != 1 || ps[0] != "email" {
		t.Fatalf("providers: %v", am["providers"])
	}
	// The token of that user carries them too.
	tok := e.signIn("prov@example.ro", "secret1")
	if tok.status != 200 || tok.body["user"].(map[string]any)["app_metadata"].(map[string]any)["provider"] != "email" {
		t.Fatalf("sign in: %v", tok.body)
	}
	for _, bad := range []string{"not-an-address", "a@b", "two@@example.ro"} {
		r := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": bad, "password": "secret1"}, svc)
		e.expectErr(r, 400, "validation_failed")
		if r.body["msg"] != "Unable to validate email address: invalid format" {
			t.Fatalf("%q: %v", bad, r.body["msg"])
		}
	}
	e.expectErr(e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "prov@example.ro", "password": "secret1"}, svc), 422, "email_exists")
}

func TestAdminListPagination(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	for _, q := range []string{"page=0", "page=-1", "page=x", "per_page=0", "per_page=-5"} {
		r := e.do("GET", "/auth/v1/admin/users?"+q, nil, svc)
		e.expectErr(r, 400, "validation_failed")
		if !strings.HasPrefix(r.body["msg"].(string), "Bad Pagination Parameters") {
			t.Fatalf("%s: %v", q, r.body["msg"])
		}
	}
	for _, em := range []string{"p1@example.ro", "p2@example.ro", "p3@example.ro"} {
		if r := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": em}, svc); r.status != 200 {
			t.Fatal(r.body)
		}
	}
	r := e.do("GET", "/auth/v1/admin/users?page=2&per_page=2", nil, svc)
	if r.status != 200 || len(r.body["users"].([]any)) != 1 || r.header.Get("X-Total-Count") != "3" {
		t.Fatalf("page 2: %d %v %s", r.status, r.body, r.header.Get("X-Total-Count"))
	}
}

// An admin's e-mail change applies at once: the new address signs in, the old one no
// longer does, and the e-mail identity follows.
func TestAdminUpdateChangesEmail(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	r := e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "old@example.ro", "password": "secret1", "email_confirm": true}, svc)
	id := r.body["id"].(string)
	e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "taken@example.ro"}, svc)
	e.expectErr(e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"email": "Taken@example.ro"}, svc), 422, "email_exists")
	e.expectErr(e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"email": "nope"}, svc), 400, "validation_failed")
	r = e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"email": "new@example.ro"}, svc)
	if r.status != 200 || r.body["email"] != "new@example.ro" {
		t.Fatalf("update: %d %v", r.status, r.body)
	}
	ids := r.body["identities"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["identity_data"].(map[string]any)["email"] != "new@example.ro" {
		t.Fatalf("identity: %v", ids)
	}
	if s := e.signIn("new@example.ro", "secret1"); s.status != 200 {
		t.Fatalf("new address: %v", s.body)
	}
	e.expectErr(e.signIn("old@example.ro", "secret1"), 400, "invalid_credentials")
	// app_metadata given by PUT is merged, as GoTrue merges it.
	r = e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"app_metadata": map[string]any{"plan": "pro"}}, svc)
	if am := r.body["app_metadata"].(map[string]any); am["provider"] != "email" || am["plan"] != "pro" {
		t.Fatalf("merged app_metadata: %v", am)
	}
}

// The admin bearer is accepted for the roles of JWT_ADMIN_ROLES, GoTrue's default
// service_role and supabase_admin.
func TestAdminRolesConfigurable(t *testing.T) {
	e := start(t, nil)
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, e.srv.Deps.Keys.AnonKey), 403, "not_admin")
	e.expectErr(e.do("GET", "/auth/v1/admin/users", nil, roleToken(t, "ops")), 403, "not_admin")
	if r := e.do("GET", "/auth/v1/admin/users", nil, roleToken(t, "supabase_admin")); r.status != 200 {
		t.Fatalf("supabase_admin: %v", r.body)
	}
	c := start(t, func(c *config.Config) { c.JWTAdminRoles = []string{"ops"} })
	if r := c.do("GET", "/auth/v1/admin/users", nil, roleToken(t, "ops")); r.status != 200 {
		t.Fatalf("configured role: %v", r.body)
	}
	c.expectErr(c.do("GET", "/auth/v1/admin/users", nil, c.srv.Deps.Keys.ServiceKey), 403, "not_admin")
}

func TestAdminGenerateLink(t *testing.T) {
	e := start(t, func(c *config.Config) { c.APIExternalURL = "https://api.casus.test" })
	svc := e.srv.Deps.Keys.ServiceKey
	gen := func(body map[string]any) resp {
		t.Helper()
		return e.do("POST", "/auth/v1/admin/generate_link", body, svc)
	}
	// follow redeems an action link on this server (it names API_EXTERNAL_URL).
	follow := func(r resp) url.Values {
		t.Helper()
		link := r.body["action_link"].(string)
		if !strings.HasPrefix(link, "https://api.casus.test/auth/v1/verify?") {
			t.Fatalf("action_link: %s", link)
		}
		u, _ := url.Parse(link)
		if u.Query().Get("token") != r.body["hashed_token"] || u.Query().Get("type") != r.body["verification_type"] {
			t.Fatalf("link and properties disagree: %v", r.body)
		}
		_, frag := e.follow(link)
		return frag
	}

	// signup: creates the unconfirmed user with the password; the link confirms it.
	r := gen(map[string]any{"type": "signup", "email": "gen@example.ro", "password": "secret1", "data": map[string]any{"name": "Gen"}})
	if r.status != 200 || r.body["email"] != "gen@example.ro" || r.body["verification_type"] != "signup" || r.body["redirect_to"] != e.srv.URL || r.body["id"] == nil {
		t.Fatalf("signup link: %d %v", r.status, r.body)
	}
	e.expectErr(e.signIn("gen@example.ro", "secret1"), 400, "email_not_confirmed")
	if frag := follow(r); frag.Get("access_token") == "" || frag.Get("type") != "signup" {
		t.Fatalf("signup link session: %v", frag)
	}
	if s := e.signIn("gen@example.ro", "secret1"); s.status != 200 {
		t.Fatalf("after confirming: %v", s.body)
	}
	e.expectErr(gen(map[string]any{"type": "signup", "email": "gen@example.ro", "password": "secret1"}), 422, "email_exists")
	e.expectErr(gen(map[string]any{"type": "invite", "email": "gen@example.ro"}), 422, "email_exists")

	// recovery and magiclink: redeemable by verifyOtp's token_hash, once.
	for _, typ := range []string{"recovery", "magiclink"} {
		r := gen(map[string]any{"type": typ, "email": "gen@example.ro", "redirect_to": e.srv.URL + "/reset"})
		if r.status != 200 || r.body["verification_type"] != typ || r.body["redirect_to"] != e.srv.URL+"/reset" {
			t.Fatalf("%s: %d %v", typ, r.status, r.body)
		}
		v := e.do("POST", "/auth/v1/verify", map[string]any{"type": typ, "token_hash": r.body["hashed_token"]}, "")
		if v.status != 200 || v.body["access_token"] == nil {
			t.Fatalf("%s verify: %v", typ, v.body)
		}
		e.expectErr(e.do("POST", "/auth/v1/verify", map[string]any{"type": typ, "token_hash": r.body["hashed_token"]}, ""), 403, "otp_expired")
	}
	e.expectErr(gen(map[string]any{"type": "recovery", "email": "ghost@example.ro"}), 404, "user_not_found")

	// A magic link for an unknown address signs it up, as GoTrue does.
	r = gen(map[string]any{"type": "magiclink", "email": "fresh@example.ro"})
	if r.status != 200 || r.body["verification_type"] != "signup" {
		t.Fatalf("magiclink for a new address: %v", r.body)
	}
	if frag := follow(r); frag.Get("access_token") == "" {
		t.Fatalf("new magic link: %v", frag)
	}

	// invite: a passwordless account, type=invite in the landing fragment.
	r = gen(map[string]any{"type": "invite", "email": "inv@example.ro", "redirect_to": "https://evil.example.com/"})
	if r.status != 200 || r.body["verification_type"] != "invite" || r.body["redirect_to"] != e.srv.URL {
		t.Fatalf("invite: %v", r.body)
	}
	if frag := follow(r); frag.Get("access_token") == "" || frag.Get("type") != "invite" {
		t.Fatalf("invite session: %v", frag)
	}

	// Bad input and callers.
	e.expectErr(gen(map[string]any{"type": "bogus", "email": "gen@example.ro"}), 400, "validation_failed")
	e.expectErr(gen(map[string]any{"type": "signup", "email": "bad"}), 400, "validation_failed")
	e.expectErr(gen(map[string]any{"type": "signup", "email": "nopw@example.ro"}), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/admin/generate_link", map[string]any{"type": "signup", "email": "a@example.ro", "password": "secret1"}, e.srv.Deps.Keys.AnonKey), 403, "not_admin")
}

func TestInvite(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	e.expectErr(e.do("POST", "/auth/v1/invite", map[string]any{"email": "guest@example.ro"}, ""), 401, "no_authorization")
	e.expectErr(e.do("POST", "/auth/v1/invite", map[string]any{"email": "guest@example.ro"}, e.srv.Deps.Keys.AnonKey), 403, "not_admin")
	e.expectErr(e.do("POST", "/auth/v1/invite", map[string]any{"email": "bad"}, svc), 400, "validation_failed")
	r := e.do("POST", "/auth/v1/invite?redirect_to="+url.QueryEscape(e.srv.URL+"/welcome"), map[string]any{"email": "guest@example.ro", "data": map[string]any{"name": "Oaspete"}}, svc)
	if r.status != 200 || r.body["email"] != "guest@example.ro" || r.body["email_confirmed_at"] != nil || r.body["user_metadata"].(map[string]any)["name"] != "Oaspete" {
		t.Fatalf("invite: %d %v", r.status, r.body)
	}
	m, ok := e.sink.WaitFor("guest@example.ro", 0, 5*time.Second)
	if !ok || !strings.Contains(m.Link, "type=invite") {
		t.Fatalf("invite mail: %v %s", ok, m.Link)
	}
	loc, frag := e.follow(m.Link)
	if loc.Path != "/welcome" || frag.Get("type") != "invite" || frag.Get("access_token") == "" {
		t.Fatalf("invite landing: %s", loc)
	}
	// The invitee sets a password and signs in with it.
	if p := e.do("PUT", "/auth/v1/user", map[string]any{"password": "chosen1"}, frag.Get("access_token")); p.status != 200 {
		t.Fatal(p.body)
	}
	if s := e.signIn("guest@example.ro", "chosen1"); s.status != 200 {
		t.Fatal(s.body)
	}
	// Now confirmed: a second invite is refused.
	e.expectErr(e.do("POST", "/auth/v1/invite", map[string]any{"email": "guest@example.ro"}, svc), 422, "email_exists")
}

// generate_link's e-mail change links, as GoTrue with secure e-mail change: both the
// current and the new address confirm, in either order, before the address moves.
func TestAdminGenerateEmailChangeLinks(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	gen := func(body map[string]any) resp {
		t.Helper()
		return e.do("POST", "/auth/v1/admin/generate_link", body, svc)
	}
	e.signupConfirmed("cur@example.ro", "secret1")
	e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "other@example.ro"}, svc)
	e.expectErr(gen(map[string]any{"type": "email_change_new", "email": "ghost@example.ro", "new_email": "n@example.ro"}), 404, "user_not_found")
	e.expectErr(gen(map[string]any{"type": "email_change_new", "email": "cur@example.ro", "new_email": "Other@example.ro"}), 422, "email_exists")
	e.expectErr(gen(map[string]any{"type": "email_change_new", "email": "cur@example.ro", "new_email": "bad"}), 400, "validation_failed")
	e.expectErr(gen(map[string]any{"type": "email_change_new", "email": "cur@example.ro"}), 400, "validation_failed")

	cur := gen(map[string]any{"type": "email_change_current", "email": "cur@example.ro", "new_email": "moved@example.ro"})
	nw := gen(map[string]any{"type": "email_change_new", "email": "cur@example.ro", "new_email": "moved@example.ro"})
	for _, r := range []resp{cur, nw} {
		link, _ := url.Parse(r.body["action_link"].(string))
		if r.status != 200 || link.Query().Get("type") != "email_change" || link.Query().Get("token") != r.body["hashed_token"] {
			t.Fatalf("email change link: %d %v", r.status, r.body)
		}
	}
	// The first link is accepted and changes nothing yet.
	loc, frag := e.follow(cur.body["action_link"].(string))
	if frag.Get("message") == "" || frag.Get("access_token") != "" || loc.Host != strings.TrimPrefix(e.srv.URL, "http://") {
		t.Fatalf("first confirmation: %s", loc)
	}
	if s := e.signIn("cur@example.ro", "secret1"); s.status != 200 {
		t.Fatalf("the address moved after one confirmation: %v", s.body)
	}
	// The second completes it (here through verifyOtp's token_hash) and signs in.
	v := e.do("POST", "/auth/v1/verify", map[string]any{"type": "email_change", "token_hash": nw.body["hashed_token"]}, "")
	if v.status != 200 || v.body["user"].(map[string]any)["email"] != "moved@example.ro" {
		t.Fatalf("second confirmation: %d %v", v.status, v.body)
	}
	if s := e.signIn("moved@example.ro", "secret1"); s.status != 200 {
		t.Fatalf("new address: %v", s.body)
	}
	e.expectErr(e.signIn("cur@example.ro", "secret1"), 400, "invalid_credentials")
	// Both links are spent.
	e.expectErr(e.do("POST", "/auth/v1/verify", map[string]any{"type": "email_change", "token_hash": nw.body["hashed_token"]}, ""), 403, "otp_expired")

	// One link alone never moves the address.
	one := gen(map[string]any{"type": "email_change_new", "email": "moved@example.ro", "new_email": "third@example.ro"})
	p := e.do("POST", "/auth/v1/verify", map[string]any{"type": "email_change", "token_hash": one.body["hashed_token"]}, "")
	if p.status != 200 || p.body["msg"] == nil || p.body["access_token"] != nil {
		t.Fatalf("single confirmation: %d %v", p.status, p.body)
	}
	if s := e.signIn("moved@example.ro", "secret1"); s.status != 200 {
		t.Fatalf("moved on one link: %v", s.body)
	}
}
