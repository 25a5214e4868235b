package gotrue_test

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// second starts another instance on e's database (as behind a load balancer), with the
// same settings tweak applies.
func (e *env) second(tweak func(*config.Config)) *env {
	e.t.Helper()
	host, port, _ := net.SplitHostPort(e.sink.Addr)
	srv := testserver.Start(e.t, func(c *config.Config) {
		c.DatabaseURL = e.srv.Deps.DatabaseURL
		c.SMTPHost = host
		c.SMTPPort, _ = strconv.Atoi(port)
		c.RateLimitEnabled = true
		if tweak != nil {
			tweak(c)
		}
	})
	return &env{t: e.t, srv: srv, sink: e.sink}
}

// Two instances on one database enforce one sign-in limit per IP: attempts spent on
// either count for both, and the refusal is GoTrue's 429 whichever instance answers.
func TestSignInLimitHoldsAcrossInstances(t *testing.T) {
	limits := func(c *config.Config) { c.RateLimitSignIn = 4 }
	one := start(t, limits)
	two := one.second(limits)
	attempt := func(e *env, i int) resp {
		return e.do("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": fmt.Sprintf("ip%d@example.ro", i), "password": "secret1"}, "")
	}
	for i := range 4 {
		e := []*env{one, two}[i%2]
		e.expectErr(attempt(e, i), 400, "invalid_credentials")
	}
	a, b := attempt(one, 5), attempt(two, 6)
	one.expectErr(a, 429, "over_request_rate_limit")
	two.expectErr(b, 429, "over_request_rate_limit")
	if fmt.Sprint(a.body) != fmt.Sprint(b.body) {
		t.Fatalf("the instances refuse differently: %v and %v", a.body, b.body)
	}
	for _, h := range []string{"Retry-After", "Content-Type"} {
		if a.header.Get(h) == "" || a.header.Get(h) != b.header.Get(h) {
			t.Fatalf("%s: %q and %q", h, a.header.Get(h), b.header.Get(h))
		}
	}
}

// The per-address limit on failed sign-ins holds across instances too, from addresses
// the per-IP limit would let through (clients behind a trusted proxy).
func TestFailedSignInsPerAddressAcrossInstances(t *testing.T) {
	limits := func(c *config.Config) { c.RateLimitSignIn = 3; c.TrustedProxies = loopbackProxy }
	one := start(t, limits)
	two := one.second(limits)
	one.signupConfirmed("target@example.ro", "right-password")
	guess := func(e *env, i int, pw string) resp {
		return e.doWith("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": "target@example.ro", "password": pw},
			map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i)})
	}
	for i := range 3 {
		e := []*env{one, two}[i%2]
		e.expectErr(guess(e, i, fmt.Sprintf("guess%d", i)), 400, "invalid_credentials")
	}
	one.expectErr(guess(one, 10, "guess"), 429, "over_request_rate_limit")
	two.expectErr(guess(two, 11, "right-password"), 429, "over_request_rate_limit")
}

// The per-address mail limit is shared: a recovery mail sent through one instance uses the
// address's hourly allowance on the other.
func TestMailLimitHoldsAcrossInstances(t *testing.T) {
	limits := func(c *config.Config) { c.RateLimitEmail = 2; c.TrustedProxies = loopbackProxy }
	one := start(t, limits)
	two := one.second(limits)
	one.signupConfirmed("mail@example.ro", "secret1") // the address's first mail
	recover := func(e *env, xff string) resp {
		return e.doWith("POST", "/auth/v1/recover", map[string]any{"email": "mail@example.ro"}, map[string]string{"X-Forwarded-For": xff})
	}
	if r := recover(two, "198.51.100.20"); r.status != 200 {
		t.Fatal(r.status, r.body)
	}
	one.expectErr(recover(one, "198.51.100.21"), 429, "over_email_send_rate_limit")
}
