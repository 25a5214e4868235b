package gotrue_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"casus/server/internal/config"
)

func (e *env) signIn(email, password string) resp {
	return e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": email, "password": password}, "")
}

// mail waits for the n-th mail (0-based) to the address and returns its link.
func (e *env) mail(to string, n int) string {
	e.t.Helper()
	m, ok := e.sink.WaitFor(to, n, 10*time.Second)
	if !ok {
		e.t.Fatalf("mail %d to %s never arrived", n, to)
	}
	return m.Link
}

// An attacker who signs up the victim's address first must not keep a way in once the
// victim signs up and confirms: the attacker's password, metadata and link die.
func TestPreRegistrationTakeover(t *testing.T) {
	e := start(t, nil)
	const victim = "victima@example.ro"
	first := e.do("POST", "/auth/v1/signup", map[string]any{"email": victim, "password": "attacker-pw", "data": map[string]any{"name": "Atacator"}}, "")
	if first.status != 200 {
		t.Fatal(first.body)
	}
	attackerLink := e.mail(victim, 0)

	second := e.do("POST", "/auth/v1/signup", map[string]any{"email": victim, "password": "victim-pw", "data": map[string]any{"name": "Victima"}}, "")
	if second.status != 200 || second.body["id"] == first.body["id"] {
		t.Fatalf("second sign-up answered the first account: %v", second.body)
	}
	_, frag := e.follow(e.mail(victim, 1))
	if frag.Get("access_token") == "" {
		t.Fatalf("victim's confirmation: %v", frag)
	}
	e.expectErr(e.signIn(victim, "attacker-pw"), 400, "invalid_credentials")
	if r := e.signIn(victim, "victim-pw"); r.status != 200 {
		t.Fatalf("victim's password: %v", r.body)
	}
	u := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token"))
	if u.body["user_metadata"].(map[string]any)["name"] != "Victima" {
		t.Fatalf("the attacker's metadata survived: %v", u.body)
	}
	if _, f := e.follow(attackerLink); f.Get("error_code") != "otp_expired" {
		t.Fatalf("the attacker's link still works: %v", f)
	}
}

// A victim who never signs up but follows a magic link or a reset link for an address the
// attacker registered gets the account without the attacker's password.
func TestLinkConfirmationDropsUnprovenPassword(t *testing.T) {
	e := start(t, nil)
	for i, path := range []string{"/auth/v1/otp", "/auth/v1/recover"} {
		victim := []string{"magic@example.ro", "reset@example.ro"}[i]
		if r := e.do("POST", "/auth/v1/signup", map[string]any{"email": victim, "password": "attacker-pw"}, ""); r.status != 200 {
			t.Fatal(r.body)
		}
		e.mail(victim, 0)
		if r := e.do("POST", path, map[string]any{"email": victim}, ""); r.status != 200 {
			t.Fatal(r.body)
		}
		_, frag := e.follow(e.mail(victim, 1))
		if frag.Get("access_token") == "" {
			t.Fatalf("%s: %v", path, frag)
		}
		e.expectErr(e.signIn(victim, "attacker-pw"), 400, "invalid_credentials")
		if r := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token")); r.status != 200 || r.body["email_confirmed_at"] == nil {
			t.Fatalf("%s: %v", path, r.body)
		}
	}
}

// A new password (changed while signed in, or set from a reset link) ends every other
// session and voids every pending link, as GoTrue does.
func TestPasswordChangeRevokesSessionsAndLinks(t *testing.T) {
	e := start(t, nil)
	const email = "parola@example.ro"
	a := e.signupConfirmed(email, "secret1")
	b := e.signIn(email, "secret1").body
	// Pending links: a reset and a magic link.
	e.do("POST", "/auth/v1/recover", map[string]any{"email": email}, "")
	recovery := e.mail(email, 1)
	e.do("POST", "/auth/v1/otp", map[string]any{"email": email}, "")
	magic := e.mail(email, 2)

	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "secret2"}, a["access_token"].(string)); r.status != 200 {
		t.Fatal(r.body)
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, b["access_token"].(string)), 403, "session_not_found")
	e.expectErr(e.refresh(b["refresh_token"]), 400, "refresh_token_not_found")
	if r := e.do("GET", "/auth/v1/user", nil, a["access_token"].(string)); r.status != 200 {
		t.Fatalf("the session that changed the password ended: %v", r.body)
	}
	for _, link := range []string{recovery, magic} {
		if _, f := e.follow(link); f.Get("error_code") != "otp_expired" {
			t.Fatalf("a link from before the change still signs in: %v", f)
		}
	}

	// Reset: the session of the reset link sets the password; every other session ends.
	e.do("POST", "/auth/v1/recover", map[string]any{"email": email}, "")
	_, frag := e.follow(e.mail(email, 3))
	if r := e.do("PUT", "/auth/v1/user", map[string]any{"password": "secret3"}, frag.Get("access_token")); r.status != 200 {
		t.Fatal(r.body)
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, a["access_token"].(string)), 403, "session_not_found")
	if r := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token")); r.status != 200 {
		t.Fatal(r.body)
	}

	// An admin setting the password ends every session.
	id := e.do("GET", "/auth/v1/user", nil, frag.Get("access_token")).body["id"].(string)
	if r := e.do("PUT", "/auth/v1/admin/users/"+id, map[string]any{"password": "secret4"}, e.srv.Deps.Keys.ServiceKey); r.status != 200 {
		t.Fatal(r.body)
	}
	e.expectErr(e.do("GET", "/auth/v1/user", nil, frag.Get("access_token")), 403, "session_not_found")
	if r := e.signIn(email, "secret4"); r.status != 200 {
		t.Fatal(r.body)
	}
}

// A PKCE flow belongs to the request that sent its link: a challenge an attacker sent for
// the victim's address yields no code on the victim's link, and a code expires.
func TestPKCEFlowBelongsToItsLink(t *testing.T) {
	e := start(t, nil)
	const victim = "pkce-victim@example.ro"
	e.signupConfirmed(victim, "secret1")
	attackerVerifier := "attacker-verifier-of-sufficient-length-0123456789"
	if r := e.do("POST", "/auth/v1/recover", map[string]any{"email": victim, "code_challenge": s256(attackerVerifier), "code_challenge_method": "s256"}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	planted := e.mail(victim, 1)
	// The victim asks for a reset without PKCE (the app's implicit flow) and follows it.
	if r := e.do("POST", "/auth/v1/recover", map[string]any{"email": victim}, ""); r.status != 200 {
		t.Fatal(r.body)
	}
	loc, frag := e.follow(e.mail(victim, 2))
	if code := loc.Query().Get("code"); code != "" {
		r := e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": attackerVerifier}, "")
		t.Fatalf("the victim's link issued a code for the attacker's challenge (exchange: %d)", r.status)
	}
	if frag.Get("access_token") == "" || frag.Get("type") != "recovery" {
		t.Fatalf("victim's reset: %s", loc)
	}
	if _, f := e.follow(planted); f.Get("error_code") != "otp_expired" {
		t.Fatalf("the replaced link still works: %v", f)
	}

	// The victim's own PKCE flow works, once, and its code expires after GoTrue's 5 minutes.
	verifier := "victim-verifier-of-sufficient-length-0123456789"
	for i, expire := range []bool{false, true} {
		r := e.do("POST", "/auth/v1/recover", map[string]any{"email": victim, "code_challenge": s256(verifier), "code_challenge_method": "s256"}, "")
		loc, _ = e.followFrom(e.mail(victim, 3+i), r.header.Get("Set-Cookie"))
		code := loc.Query().Get("code")
		if code == "" {
			t.Fatalf("no code: %s", loc)
		}
		if expire {
			e.exec("update auth.flow_state set auth_code_issued_at = now() - interval '6 minutes'")
			e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, ""), 422, "flow_state_expired")
			continue
		}
		e.expectErr(e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": attackerVerifier}, ""), 403, "bad_code_verifier")
	}
}

// Magic links live an hour, confirmation links a day; a magic link cannot be redeemed
// as a confirmation link to live longer.
func TestMagicLinkLivesAnHour(t *testing.T) {
	e := start(t, nil)
	const email = "ora@example.ro"
	e.signupConfirmed(email, "secret1")
	e.do("POST", "/auth/v1/otp", map[string]any{"email": email}, "")
	link := e.mail(email, 1)
	e.exec("update auth.one_time_tokens set created_at = now() - interval '61 minutes'")
	if _, f := e.follow(strings.Replace(link, "type=magiclink", "type=signup", 1)); f.Get("error_code") != "otp_expired" {
		t.Fatalf("a magic link redeemed as a sign-up link: %v", f)
	}
	if _, f := e.follow(link); f.Get("error_code") != "otp_expired" {
		t.Fatalf("a magic link older than an hour: %v", f)
	}
	e.do("POST", "/auth/v1/otp", map[string]any{"email": email}, "")
	link = e.mail(email, 2)
	e.exec("update auth.one_time_tokens set created_at = now() - interval '59 minutes'")
	if _, f := e.follow(link); f.Get("access_token") == "" {
		t.Fatalf("a magic link younger than an hour: %v", f)
	}
}

// raw sends a request and returns status and body bytes.
func (e *env) raw(method, path string, body any) (int, http.Header, []byte) {
	e.t.Helper()
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(j))
	req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

var (
	uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRe = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"`)
)

// TestSignupDoesNotEnumerate: a sign-up of a new address, of an unconfirmed one and of a
// confirmed one answer the same bytes but for ids, times and the address itself, and for
// the confirmed one's empty identities, which GoTrue answers (Supabase's documented signal).
func TestSignupDoesNotEnumerate(t *testing.T) {
	e := start(t, nil)
	e.signupConfirmed("confirmed@example.ro", "secret1")
	earlier := e.do("POST", "/auth/v1/signup", map[string]any{"email": "pending@example.ro", "password": "secret1"}, "")
	start := time.Now().UTC().Add(-time.Second)
	var shapes []string
	for _, addr := range []string{"fresh", "pending", "confirmed"} {
		// Each its own username: the study app's trigger makes a profile per sign-up.
		data := map[string]any{"name": "Ana Pop", "username": addr + "_user", "university_code": "UB"}
		status, h, b := e.raw("POST", "/auth/v1/signup", map[string]any{"email": addr + "@example.ro", "password": "another-pw", "data": data})
		if status != 200 || h.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("%s: %d %s", addr, status, b)
		}
		var u struct {
			ID        string `json:"id"`
			CreatedAt string `json:"created_at"`
		}
		_ = json.Unmarshal(b, &u)
		created, _ := time.Parse(time.RFC3339Nano, u.CreatedAt)
		if u.ID == earlier.body["id"] || created.Before(start) {
			t.Fatalf("%s: the earlier account shows through: %s", addr, b)
		}
		norm := strings.ReplaceAll(string(b), addr+"@example.ro", "ADDRESS")
		norm = strings.ReplaceAll(norm, addr+"_user", "USERNAME")
		norm = uuidRe.ReplaceAllString(norm, "UUID")
		shapes = append(shapes, timeRe.ReplaceAllString(norm, "TIME"))
	}
	identities := regexp.MustCompile(`"identities":\[.*\],"created_at"`)
	if shapes[0] != shapes[1] || identities.ReplaceAllString(shapes[0], `"identities":[],"created_at"`) != shapes[2] {
		t.Fatalf("sign-up answers differ:\nfresh     %s\npending   %s\nconfirmed %s", shapes[0], shapes[1], shapes[2])
	}
}

// A magic link without sign-up answers an unknown address exactly as a known one, and
// creates nothing.
func TestOTPWithoutSignupDoesNotEnumerate(t *testing.T) {
	e := start(t, nil)
	e.signupConfirmed("known@example.ro", "secret1")
	type answer struct {
		status int
		ctype  string
		body   string
	}
	var got []answer
	for _, addr := range []string{"known@example.ro", "unknown@example.ro"} {
		status, h, b := e.raw("POST", "/auth/v1/otp", map[string]any{"email": addr, "create_user": false})
		got = append(got, answer{status, h.Get("Content-Type"), string(b)})
	}
	if got[0] != got[1] || got[0].status != 200 {
		t.Fatalf("known %+v, unknown %+v", got[0], got[1])
	}
	var n int
	if err := e.srv.Deps.Owner.QueryRow(t.Context(), "select count(*) from auth.users where email = 'unknown@example.ro'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("create_user false created %d users (%v)", n, err)
	}
	if e.mail("known@example.ro", 1) == "" {
		t.Fatal("no magic link for the known address")
	}
}

// /recover takes as long for an unknown address as for a known one. Requests alternate
// (so load on the machine hits both alike) and the median of the pairwise ratios is
// compared with a generous bound: before the fix a known address took about twice as long.
func TestRecoverTimingDoesNotEnumerate(t *testing.T) {
	e := start(t, func(c *config.Config) { c.RateLimitEmail = 100_000 })
	e.signupConfirmed("timing@example.ro", "secret1")
	client := &http.Client{}
	timeOne := func(email string) time.Duration {
		j, _ := json.Marshal(map[string]any{"email": email})
		req, _ := http.NewRequest("POST", e.srv.URL+"/auth/v1/recover", bytes.NewReader(j))
		req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("recover: %d", res.StatusCode)
		}
		return time.Since(t0)
	}
	for range 10 { // warm up connections and caches
		timeOne("timing@example.ro")
		timeOne("nobody@example.ro")
	}
	var ratios []float64
	var knownTimes, unknownTimes []time.Duration
	for i := range 80 {
		var known, unknown time.Duration
		if i%2 == 0 {
			known, unknown = timeOne("timing@example.ro"), timeOne("nobody@example.ro")
		} else {
			unknown, known = timeOne("nobody@example.ro"), timeOne("timing@example.ro")
		}
		ratios = append(ratios, float64(known)/float64(unknown))
		knownTimes, unknownTimes = append(knownTimes, known), append(unknownTimes, unknown)
	}
	slices.Sort(ratios)
	slices.Sort(knownTimes)
	slices.Sort(unknownTimes)
	t.Logf("median /recover: known %v, unknown %v; median pairwise ratio %.2f", knownTimes[40], unknownTimes[40], ratios[40])
	if median := ratios[len(ratios)/2]; median > 1.5 || median < 1/1.5 {
		t.Fatalf("median known/unknown time ratio %.2f (quartiles %.2f–%.2f)", median, ratios[len(ratios)/4], ratios[3*len(ratios)/4])
	}
}

// Metadata is bounded (it travels in every token and cached identity): too large is a
// GoTrue-shaped 400, never stored.
func TestMetadataIsBounded(t *testing.T) {
	e := start(t, nil)
	s := e.signupConfirmed("meta@example.ro", "secret1")
	access := s["access_token"].(string)
	blob := strings.Repeat("x", 700_000)
	e.expectErr(e.do("PUT", "/auth/v1/user", map[string]any{"data": map[string]any{"blob": blob}}, access), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/signup", map[string]any{"email": "big@example.ro", "password": "secret1", "data": map[string]any{"blob": blob[:20_000]}}, ""), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/otp", map[string]any{"email": "big@example.ro", "data": map[string]any{"blob": blob[:20_000]}}, ""), 400, "validation_failed")
	// Each update is small, their sum is not.
	for i := range 3 {
		r := e.do("PUT", "/auth/v1/user", map[string]any{"data": map[string]any{"part" + string(rune('a'+i)): blob[:6000]}}, access)
		if i < 2 && r.status != 200 {
			t.Fatalf("update %d: %v", i, r.body)
		}
		if i == 2 {
			e.expectErr(r, 400, "validation_failed")
		}
	}
	svc := e.srv.Deps.Keys.ServiceKey
	e.expectErr(e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "adm@example.ro", "password": "secret1", "user_metadata": map[string]any{"blob": blob[:20_000]}}, svc), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/admin/users", map[string]any{"email": "adm@example.ro", "password": "secret1", "app_metadata": map[string]any{"blob": blob[:20_000]}}, svc), 400, "validation_failed")
	u := e.do("GET", "/auth/v1/user", nil, access)
	if b, _ := json.Marshal(u.body["user_metadata"]); len(b) > 16<<10 {
		t.Fatalf("stored metadata of %d bytes", len(b))
	}
}

// followFrom opens a mailed link in the browser that received setCookie.
func (e *env) followFrom(link, setCookie string) (*url.URL, url.Values) {
	e.t.Helper()
	u, _ := url.Parse(link)
	cookie := strings.SplitN(setCookie, ";", 2)[0]
	r := e.doWith("GET", u.RequestURI(), nil, map[string]string{"Cookie": cookie})
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("verify: %d %v", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	frag, _ := url.ParseQuery(loc.Fragment)
	return loc, frag
}

// Issue 32, PKCE flow planting through /recover: an attacker's recovery request for the
// victim's address, with the attacker's challenge, yields no code when the victim follows
// the mail (another browser): the flow is spent and the redirect says why. The browser
// that asked (its cookie) gets the code, as supabase-js's PKCE recovery needs.
func TestPKCERecoveryPlantedFromAnotherBrowser(t *testing.T) {
	e := start(t, nil)
	const victim = "pkce-plantat@example.ro"
	e.signupConfirmed(victim, "secret1")
	attackerVerifier := "attacker-verifier-of-sufficient-length-0123456789"
	r := e.do("POST", "/auth/v1/recover", map[string]any{"email": victim, "code_challenge": s256(attackerVerifier), "code_challenge_method": "s256"}, "")
	if r.status != 200 || !strings.Contains(r.header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("recover: %d %v %q", r.status, r.body, r.header.Get("Set-Cookie"))
	}
	loc, frag := e.follow(e.mail(victim, 1)) // the victim's browser: no cookie
	if loc.Query().Get("code") != "" || frag.Get("error_code") != "flow_state_not_found" {
		t.Fatalf("the victim's click on a planted link: %s", loc)
	}
	if n := e.count("select count(*) from auth.flow_state"); n != 0 {
		t.Fatalf("flow states left after the stranger's click: %d", n)
	}
	// A browser with another request's cookie is a stranger too.
	other := e.do("POST", "/auth/v1/recover", map[string]any{"email": "altcineva@example.ro", "code_challenge": s256("alt-verifier-of-sufficient-length-0123456789"), "code_challenge_method": "s256"}, "")
	e.do("POST", "/auth/v1/recover", map[string]any{"email": victim, "code_challenge": s256(attackerVerifier), "code_challenge_method": "s256"}, "")
	if loc, _ := e.followFrom(e.mail(victim, 2), other.header.Get("Set-Cookie")); loc.Query().Get("code") != "" {
		t.Fatalf("a code for a browser holding another flow's cookie: %s", loc)
	}
	// The requesting browser gets its code and exchanges it.
	verifier := "victim-verifier-of-sufficient-length-0123456789"
	r = e.do("POST", "/auth/v1/recover", map[string]any{"email": victim, "code_challenge": s256(verifier), "code_challenge_method": "s256"}, "")
	loc, _ = e.followFrom(e.mail(victim, 3), r.header.Get("Set-Cookie"))
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("the requesting browser got no code: %s", loc)
	}
	if x := e.do("POST", "/auth/v1/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, ""); x.status != 200 {
		t.Fatalf("exchange: %d %v", x.status, x.body)
	}
}
