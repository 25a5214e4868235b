package aigw_test

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/authn"
)

// A visitor signed in anonymously (is_anonymous in the token) gets neither the tutor nor
// grading, before anything reaches the provider; the same user with an account does.
func TestAnonymousUsersGetNoAI(t *testing.T) {
	e := start(t, nil)
	sign := func(anonymous bool) string {
		c := &authn.Claims{Role: authn.RoleAuthenticated, IsAnonymous: anonymous}
		c.Subject = userA
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		tok, _ := e.srv.Deps.Keys.Sign(c)
		return tok
	}
	tutor := map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	msg := map[string]any{"messages": []map[string]any{{"role": "user", "content": "Ce articol se aplică?"}}}
	before := len(e.fake.Requests())
	if st, out := e.call(sign(true), tutor, msg); st != 403 || errType(out) != "permission_error" {
		t.Fatalf("anonymous tutor: %d %v", st, out)
	}
	sub := e.submission(userA, "Ion răspunde în temeiul art. 1357 C.civ.")
	if st, out := e.call(sign(true), map[string]string{"X-Casus-Task": "detect", "X-Casus-Submission": sub}, map[string]any{}); st != 403 || errType(out) != "permission_error" {
		t.Fatalf("anonymous detect: %d %v", st, out)
	}
	if n := len(e.fake.Requests()); n != before {
		t.Fatalf("%d requests reached the provider", n-before)
	}
	if st, out := e.call(sign(false), tutor, msg); st != 200 {
		t.Fatalf("the same user with an account: %d %v", st, out)
	}
}
