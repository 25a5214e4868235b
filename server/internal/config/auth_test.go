package config

import "testing"

// Anonymous sign-ins follow GoTrue's default (off) for the core alone and are on for the
// study app, whose visitors try a case before signing up; the variable decides either way.
// Reauthentication and unlinking stay off unless asked for.
func TestAuthFeatureDefaults(t *testing.T) {
	for _, tc := range []struct {
		app, env string
		want     bool
	}{{"study", "", true}, {"none", "", false}, {"study", "false", false}, {"none", "true", true}} {
		t.Setenv("CASUS_STATE_DIR", t.TempDir())
		t.Setenv("CASUS_APP", tc.app)
		t.Setenv("ANONYMOUS_USERS_ENABLED", tc.env)
		c, err := Load()
		if err != nil {
			t.Fatal(err)
		}
		if c.AnonymousUsersEnabled != tc.want || c.SecurePasswordChange || c.ManualLinkingEnabled || c.RateLimitAnonymous != 30 {
			t.Errorf("CASUS_APP=%s ANONYMOUS_USERS_ENABLED=%q: %+v", tc.app, tc.env, c)
		}
	}
}
