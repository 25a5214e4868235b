package config

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// loadProduction loads the configuration as a production deployment would.
func loadProduction(t *testing.T, secret string) error {
	t.Helper()
	t.Setenv("CASUS_ENV", "production")
	t.Setenv("CASUS_STATE_DIR", t.TempDir())
	t.Setenv("JWT_SECRET", secret)
	t.Setenv("SMTP_HOST", "smtp.example.ro")
	_, err := Load()
	return err
}

// The secret shipped in .env.example (and other published ones) must never sign tokens
// in production: anyone could forge a service-role key with it.
func TestProductionRefusesPlaceholderSecrets(t *testing.T) {
	example, err := os.ReadFile("../../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^JWT_SECRET=(.*)$`).FindSubmatch(example)
	if m == nil {
		t.Fatal(".env.example has no JWT_SECRET line")
	}
	for _, secret := range []string{
		strings.TrimSpace(string(m[1])),
		"super-secret-jwt-token-with-at-least-32-characters-long",
		"CHANGE-ME-please-to-something-long-and-random-xyz",
		strings.Repeat("x", 40),
	} {
		if err := loadProduction(t, secret); err == nil || !strings.Contains(err.Error(), "placeholder") {
			t.Errorf("production accepted %q: %v", secret, err)
		}
	}
	if err := loadProduction(t, "9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60"); err != nil {
		t.Fatalf("a random secret was refused: %v", err)
	}
	// Development keeps working with anything of the right length.
	t.Setenv("CASUS_ENV", "development")
	if _, err := Load(); err != nil {
		t.Fatal(err)
	}
}

func TestProductionRefusesDevOutbox(t *testing.T) {
	t.Setenv("DEV_MAIL_OUTBOX", "true")
	if err := loadProduction(t, "9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60"); err == nil || !strings.Contains(err.Error(), "DEV_MAIL_OUTBOX") {
		t.Fatalf("production with the outbox: %v", err)
	}
}

// The image is what people deploy: it must start in production mode unless told otherwise.
func TestDockerImageDefaultsToProduction(t *testing.T) {
	b, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ENV .*\bCASUS_ENV=production\b`).Match(b) {
		t.Fatal("Dockerfile does not set CASUS_ENV=production")
	}
}

func TestTimeoutDefaults(t *testing.T) {
	t.Setenv("CASUS_STATE_DIR", t.TempDir())
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPReadTimeout <= 0 || c.HTTPReadHeaderTimeout <= 0 || c.HTTPIdleTimeout <= 0 || c.HTTPIdleTimeout > 60e9 {
		t.Fatalf("timeouts: read %v header %v idle %v", c.HTTPReadTimeout, c.HTTPReadHeaderTimeout, c.HTTPIdleTimeout)
	}
}
