package gotrue_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/pquerna/otp/totp"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// tokenAAL verifies an access token and returns its aal and amr methods.
func tokenAAL(t *testing.T, access any) (string, []string) {
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
	var methods []string
	for _, a := range c.AMR {
		methods = append(methods, a.Method)
	}
	return c.AAL, methods
}

// wrongCode is a six-digit code that no time step around now accepts.
func wrongCode(t *testing.T, secret string) string {
	t.Helper()
	valid := map[string]bool{}
	for _, d := range []time.Duration{-60 * time.Second, -30 * time.Second, 0, 30 * time.Second, 60 * time.Second} {
		c, err := totp.GenerateCode(secret, time.Now().Add(d))
		if err != nil {
			t.Fatal(err)
		}
		valid[c] = true
	}
	for _, c := range []string{"000000", "111111", "222222"} {
		if !valid[c] {
			return c
		}
	}
	t.Fatal("no wrong code")
	return ""
}

func code(t *testing.T, secret string) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *env) mfaSignIn(email, password string) map[string]any {
	e.t.Helper()
	r := e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": email, "password": password}, "")
	if r.status != 200 {
		e.t.Fatalf("sign in: %v", r.body)
	}
	return r.body
}

func factorsOf(user any) []map[string]any {
	u, _ := user.(map[string]any)
	list, _ := u["factors"].([]any)
	var out []map[string]any
	for _, f := range list {
		out = append(out, f.(map[string]any))
	}
	return out
}

// The whole TOTP life cycle as GoTrue runs it: enrol (unverified, listed on the user),
// challenge, a wrong code refused, a right one verifying the factor and raising the
// session to aal2 (amr totp + password), refresh keeping aal2, another aal1 session ended,
// a new sign-in at aal1 that may neither enrol another factor nor unenrol, unenrol at
// aal2 bringing the session back to aal1.
func TestMFATOTPLifecycle(t *testing.T) {
	e := start(t, func(c *config.Config) { c.SiteURL = "https://casus.example.ro" })
	s := e.signupConfirmed("mfa@example.ro", "secret1")
	access := s["access_token"].(string)
	other := e.mfaSignIn("mfa@example.ro", "secret1") // a second device, aal1

	en := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "Telefon"}, access)
	if en.status != 200 || en.body["type"] != "totp" || en.body["friendly_name"] != "Telefon" {
		t.Fatalf("enroll: %d %v", en.status, en.body)
	}
	fid := en.body["id"].(string)
	tot := en.body["totp"].(map[string]any)
	secret := tot["secret"].(string)
	if qr, _ := tot["qr_code"].(string); !strings.HasPrefix(qr, "<svg") || strings.ContainsAny(qr, "#%") {
		t.Fatalf("qr_code %.80q", qr)
	}
	uri, err := url.Parse(tot["uri"].(string))
	if err != nil || uri.Scheme != "otpauth" || uri.Host != "totp" || uri.Query().Get("secret") != secret ||
		uri.Query().Get("issuer") != "casus.example.ro" || !strings.Contains(uri.Path, "mfa@example.ro") {
		t.Fatalf("uri %v", tot["uri"])
	}
	u := e.do("GET", "/auth/v1/user", nil, access)
	fs := factorsOf(u.body)
	if len(fs) != 1 || fs[0]["id"] != fid || fs[0]["status"] != "unverified" || fs[0]["factor_type"] != "totp" || fs[0]["friendly_name"] != "Telefon" {
		t.Fatalf("user factors %v", u.body["factors"])
	}
	// The same name again: GoTrue's conflict.
	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "Telefon"}, access), 422, "mfa_factor_name_conflict")

	ch := e.do("POST", "/auth/v1/factors/"+fid+"/challenge", nil, access)
	if ch.status != 200 || ch.body["type"] != "totp" {
		t.Fatalf("challenge: %v", ch.body)
	}
	if exp, _ := ch.body["expires_at"].(float64); int64(exp) < time.Now().Add(290*time.Second).Unix() || int64(exp) > time.Now().Add(310*time.Second).Unix() {
		t.Fatalf("expires_at %v", ch.body["expires_at"])
	}
	cid := ch.body["id"].(string)
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "code": wrongCode(t, secret)}, access), 422, "mfa_verification_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "code": ""}, access), 400, "validation_failed")

	v := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "code": code(t, secret)}, access)
	if v.status != 200 {
		t.Fatalf("verify: %d %v", v.status, v.body)
	}
	aal, amr := tokenAAL(t, v.body["access_token"])
	if aal != "aal2" || !slices.Equal(amr, []string{"totp", "password"}) {
		t.Fatalf("after verify: aal %s amr %v", aal, amr)
	}
	if fs := factorsOf(v.body["user"]); len(fs) != 1 || fs[0]["status"] != "verified" {
		t.Fatalf("verified factors %v", v.body["user"])
	}
	if v.body["refresh_token"] == s["refresh_token"] {
		t.Fatal("refresh token not rotated")
	}
	// The refresh token from before the code is void at once (not even the reuse interval
	// lets it reach the aal2 session).
	e.expectErr(e.refresh(s["refresh_token"]), 400, "refresh_token_not_found")
	// A challenge verifies once.
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "code": code(t, secret)}, v.body["access_token"].(string)), 422, "mfa_ip_address_mismatch")
	// The other device's aal1 session is over.
	e.expectErr(e.do("GET", "/auth/v1/user", nil, other["access_token"].(string)), 403, "session_not_found")

	// Refresh keeps aal2 and the amr of both factors.
	r := e.refresh(v.body["refresh_token"])
	if r.status != 200 {
		t.Fatalf("refresh: %v", r.body)
	}
	if aal, amr := tokenAAL(t, r.body["access_token"]); aal != "aal2" || !slices.Contains(amr, "totp") {
		t.Fatalf("refreshed: %s %v", aal, amr)
	}
	aal2Access := r.body["access_token"].(string)

	// A new sign-in starts at aal1; its user lists the verified factor (nextLevel aal2).
	n := e.mfaSignIn("mfa@example.ro", "secret1")
	if aal, _ := tokenAAL(t, n["access_token"]); aal != "aal1" {
		t.Fatalf("new sign-in %s", aal)
	}
	if fs := factorsOf(n["user"]); len(fs) != 1 || fs[0]["status"] != "verified" {
		t.Fatalf("sign-in user factors %v", n["user"])
	}
	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "Al doilea"}, n["access_token"].(string)), 403, "insufficient_aal")
	e.expectErr(e.do("DELETE", "/auth/v1/factors/"+fid, nil, n["access_token"].(string)), 422, "insufficient_aal")

	// Challenge expiry.
	ch2 := e.do("POST", "/auth/v1/factors/"+fid+"/challenge", nil, n["access_token"].(string))
	if _, err := e.srv.Deps.Owner.Exec(t.Context(), "update auth.mfa_challenges set created_at = now() - interval '301 seconds' where id = $1", ch2.body["id"]); err != nil {
		t.Fatal(err)
	}
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": ch2.body["id"], "code": code(t, secret)}, n["access_token"].(string)), 422, "mfa_challenge_expired")

	// Unenrol from the aal2 session: the factor goes and the session is aal1 again.
	d := e.do("DELETE", "/auth/v1/factors/"+fid, nil, aal2Access)
	if d.status != 200 || d.body["id"] != fid {
		t.Fatalf("unenroll: %v", d.body)
	}
	r2 := e.refresh(r.body["refresh_token"])
	if aal, amr := tokenAAL(t, r2.body["access_token"]); aal != "aal1" || slices.Contains(amr, "totp") {
		t.Fatalf("after unenroll: %s %v", aal, amr)
	}
	if u := e.do("GET", "/auth/v1/user", nil, r2.body["access_token"].(string)); u.status != 200 || u.body["factors"] != nil {
		t.Fatalf("factors after unenroll: %v", u.body)
	}
}

// Errors as GoTrue answers them: unknown, foreign and malformed factor ids, unsupported
// factor types, a challenge of another factor, too many factors, no token.
func TestMFAErrors(t *testing.T) {
	e := start(t, nil)
	a := e.signupConfirmed("a-mfa@example.ro", "secret1")["access_token"].(string)
	b := e.signupConfirmed("b-mfa@example.ro", "secret1")["access_token"].(string)

	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp"}, ""), 401, "no_authorization")
	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "sms"}, a), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "phone", "phone": "+40700000000"}, a), 422, "mfa_phone_enroll_not_enabled")

	fa := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "A"}, a)
	fb := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "B"}, b)
	if fa.status != 200 || fb.status != 200 {
		t.Fatal(fa.body, fb.body)
	}
	faID, fbID := fa.body["id"].(string), fb.body["id"].(string)
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fbID+"/challenge", nil, a), 404, "mfa_factor_not_found")
	e.expectErr(e.do("DELETE", "/auth/v1/factors/"+fbID, nil, a), 404, "mfa_factor_not_found")
	e.expectErr(e.do("POST", "/auth/v1/factors/not-a-uuid/challenge", nil, a), 404, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors/00000000-0000-4000-8000-000000000000/verify", map[string]any{"challenge_id": "00000000-0000-4000-8000-000000000000", "code": "123456"}, a), 404, "mfa_factor_not_found")

	// B's challenge does not verify A's factor.
	chB := e.do("POST", "/auth/v1/factors/"+fbID+"/challenge", nil, b)
	e.expectErr(e.do("POST", "/auth/v1/factors/"+faID+"/verify", map[string]any{"challenge_id": chB.body["id"], "code": "123456"}, a), 422, "mfa_factor_not_found")

	// An unverified factor is removed at aal1.
	if d := e.do("DELETE", "/auth/v1/factors/"+faID, nil, a); d.status != 200 {
		t.Fatalf("unenroll unverified: %v", d.body)
	}
	// At most ten factors.
	for i := range 10 {
		if r := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": fmt.Sprint("f", i)}, a); r.status != 200 {
			t.Fatalf("factor %d: %v", i, r.body)
		}
	}
	e.expectErr(e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": "f10"}, a), 422, "too_many_enrolled_mfa_factors")
}

// The TOTP secrets are the server's alone: no API role holds any privilege on the factor
// and challenge tables, and the data API does not serve the auth schema.
func TestMFASecretsNotExposed(t *testing.T) {
	e := start(t, nil)
	a := e.signupConfirmed("secret-mfa@example.ro", "secret1")["access_token"].(string)
	if r := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp"}, a); r.status != 200 {
		t.Fatal(r.body)
	}
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		for _, table := range []string{"auth.mfa_factors", "auth.mfa_challenges"} {
			var readable bool
			err := e.srv.Deps.Owner.QueryRow(t.Context(),
				"select has_table_privilege($1, $2, 'select') or has_any_column_privilege($1, $2, 'select')", role, table).Scan(&readable)
			if err != nil || readable {
				t.Fatalf("%s may read %s (%v)", role, table, err)
			}
		}
	}
	for _, key := range []string{e.srv.Deps.Keys.AnonKey, e.srv.Deps.Keys.ServiceKey, a} {
		r := e.doWith("GET", "/rest/v1/mfa_factors?select=secret", nil, map[string]string{"Authorization": "Bearer " + key, "Accept-Profile": "auth"})
		if r.status == 200 {
			t.Fatalf("data API served auth.mfa_factors: %v", r.body)
		}
	}
}

// Issue 32: with SECURITY_DB_ENCRYPTION_ENCRYPT the TOTP secret is stored sealed (GoTrue's
// aes-gcm-hkdf format), never in plain text, and codes still verify. A secret stored plain
// before encryption was turned on still verifies and is sealed on that verification.
func TestMFASecretsEncryptedAtRest(t *testing.T) {
	key := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	e := start(t, func(c *config.Config) {
		c.DBEncryption = config.DBEncryption{Encrypt: true, KeyID: "k1", Keys: map[string]string{"k1": key}}
	})
	a := e.signupConfirmed("sigilat@example.ro", "secret1")["access_token"].(string)
	stored := func(fid string) string {
		var s string
		if err := e.srv.Deps.Owner.QueryRow(t.Context(), "select secret from auth.mfa_factors where id = $1", fid).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	enroll := func(name string) (string, string) {
		en := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "totp", "friendly_name": name}, a)
		if en.status != 200 {
			t.Fatalf("enroll: %d %v", en.status, en.body)
		}
		return en.body["id"].(string), en.body["totp"].(map[string]any)["secret"].(string)
	}
	verify := func(fid, secret string) {
		ch := e.do("POST", "/auth/v1/factors/"+fid+"/challenge", nil, a)
		v := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": ch.body["id"], "code": code(t, secret)}, a)
		if v.status != 200 {
			t.Fatalf("verify: %d %v", v.status, v.body)
		}
	}
	fid, secret := enroll("Telefon")
	var sealed struct {
		KeyID string `json:"key_id"`
		Alg   string `json:"alg"`
	}
	if s := stored(fid); strings.Contains(s, secret) || json.Unmarshal([]byte(s), &sealed) != nil || sealed.KeyID != "k1" || sealed.Alg != "aes-gcm-hkdf" {
		t.Fatalf("stored secret: %q", s)
	}
	verify(fid, secret)

	// A plain secret (from before encryption) verifies and is sealed by it.
	fid2, secret2 := enroll("Tabletă")
	e.exec("update auth.mfa_factors set secret = $2 where id = $1", fid2, secret2)
	verify(fid2, secret2)
	if s := stored(fid2); strings.Contains(s, secret2) {
		t.Fatalf("a plain secret stays plain after verification: %q", s)
	}
}
