package app_test

import (
	"slices"
	"strings"
	"testing"

	"casus/server/internal/app"
	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// MFA_REQUIRED_ROLES reaches the database, which enforces it (sql/app/015): the table
// holds exactly the configured roles after start, and an unknown role stops the start.
func TestMFARequiredRolesWrittenAtStart(t *testing.T) {
	srv := testserver.Start(t, func(c *config.Config) { c.MFARequiredRoles = []string{"moderator", "admin"} })
	roles := func() []string {
		rows, err := srv.Deps.Owner.Query(t.Context(), "select role from casus_meta.mfa_required_roles order by role")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var r string
			_ = rows.Scan(&r)
			out = append(out, r)
		}
		return out
	}
	if got := roles(); !slices.Equal(got, []string{"admin", "moderator"}) {
		t.Fatalf("roles %v", got)
	}

	d := srv.Deps
	cfg := *d.Config
	cfg.MFARequiredRoles = nil // MFA_REQUIRED_ROLES= (none)
	d.Config = &cfg
	_, closeAll, err := app.Handler(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	closeAll()
	if got := roles(); len(got) != 0 {
		t.Fatalf("roles after an empty setting %v", got)
	}

	cfg.MFARequiredRoles = []string{"superuser"}
	if _, _, err := app.Handler(t.Context(), d); err == nil || !strings.Contains(err.Error(), "MFA_REQUIRED_ROLES") {
		t.Fatalf("unknown role accepted: %v", err)
	}
}
