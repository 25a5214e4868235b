package domaindb

import (
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

// atAAL is the caller w with a token of the given assurance level, as GoTrue signs it.
func (f *fixture) atAAL(w who, aal string, fn func(pgx.Tx) error) error {
	c := w.claims()
	delete(c.Raw, "aal")
	c.AAL = ""
	if aal != "" {
		c.Raw["aal"] = aal
		c.AAL = aal
	}
	return db.AsRole(f.ctx, f.pool, c, db.ReadWrite, db.RequestInfo{Method: "POST", Path: "/rest/v1/test"}, fn)
}

// count runs a select as w at aal and returns its rows (or the error).
func (f *fixture) countAt(w who, aal, sql string, args ...any) (int, error) {
	n := 0
	err := f.atAAL(w, aal, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, sql, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return errRollback
	})
	if err == errRollback {
		err = nil
	}
	return n, err
}

func (f *fixture) boolAt(w who, aal, sql string) bool {
	f.t.Helper()
	var b bool
	err := f.atAAL(w, aal, func(tx pgx.Tx) error { return tx.QueryRow(f.ctx, sql).Scan(&b) })
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return b
}

func (f *fixture) factor(w who, status string) {
	f.owner(`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		values (gen_random_uuid(), $1, $2, 'totp', $3::auth.factor_status, now(), now(), 'JBSWY3DPEHPK3PXP')`, w.id, "f-"+status, status)
}

// MFA_REQUIRED_ROLES as the database enforces it: an admin at aal1, enrolled or not, has
// no admin power (RLS shows only the admin's own rows and the admin RPCs refuse it; the app
// asks them to enrol), while an aal2 token has the full powers. Roles that do not require MFA are not held to it.
func TestMFARequiredRolesUnderRLS(t *testing.T) {
	f := newFixture(t)
	profiles := `select id from public.user_profiles`
	feedback := `select id from public.feedback`
	roleChange := func(aal string) error {
		return f.atAAL(f.admin, aal, func(tx pgx.Tx) error {
			_, err := tx.Exec(f.ctx, `select public.update_user_role($1, 'moderator')`, f.a.id)
			if err != nil {
				return err
			}
			return errRollback
		})
	}

	// Not enrolled: no admin power at aal1 either (issue 32); the app asks for enrolment.
	f.factor(f.admin, "unverified")
	if n, err := f.countAt(f.admin, "aal1", profiles); err != nil || n != 1 {
		t.Fatalf("admin aal1, not enrolled: %d profiles (want own only), %v", n, err)
	}
	if err := roleChange("aal1"); err == nil || err == errRollback {
		t.Fatalf("role change by a not-enrolled admin at aal1 succeeded")
	}
	var st map[string]bool
	if err := f.atAAL(f.admin, "aal1", func(tx pgx.Tx) error {
		var raw []byte
		if err := tx.QueryRow(f.ctx, `select public.my_mfa_status()`).Scan(&raw); err != nil {
			return err
		}
		return json.Unmarshal(raw, &st)
	}); err != nil || !st["required"] || st["enrolled"] || st["satisfied"] {
		t.Fatalf("status before enrolment: %v %v", st, err)
	}

	// Enrolled: aal1 is refused by RLS and by the RPCs.
	f.factor(f.admin, "verified")
	if n, err := f.countAt(f.admin, "aal1", profiles); err != nil || n != 1 {
		t.Fatalf("admin aal1, enrolled: %d profiles (want own only), %v", n, err)
	}
	if n, err := f.countAt(f.admin, "aal1", feedback); err != nil || n != 0 {
		t.Fatalf("admin aal1, enrolled: %d feedback rows, %v", n, err)
	}
	if err := roleChange("aal1"); err == nil || err == errRollback {
		t.Fatalf("role change by an enrolled admin at aal1 succeeded")
	}
	if f.boolAt(f.admin, "aal1", `select public.my_mfa_status()->>'satisfied' = 'true'`) {
		t.Fatal("status says satisfied at aal1")
	}
	// aal2: everything back.
	if n, err := f.countAt(f.admin, "aal2", profiles); err != nil || n != 4 {
		t.Fatalf("admin aal2: %d profiles, %v", n, err)
	}
	if n, err := f.countAt(f.admin, "aal2", feedback); err != nil || n != 3 {
		t.Fatalf("admin aal2: %d feedback rows, %v", n, err)
	}
	if err := roleChange("aal2"); err != errRollback {
		t.Fatalf("role change at aal2: %v", err)
	}
	// A token without an aal claim counts as aal1.
	if f.boolAt(f.admin, "", `select public.is_admin()`) {
		t.Fatal("is_admin without aal")
	}

	// A moderator who enrolled of their own accord: not held to it while only admin requires MFA.
	f.factor(f.mod, "verified")
	if !f.boolAt(f.mod, "aal1", `select public.is_moderator()`) {
		t.Fatal("moderator refused though the role does not require MFA")
	}
	f.owner(`insert into casus_meta.mfa_required_roles values ('moderator')`)
	if f.boolAt(f.mod, "aal1", `select public.is_moderator()`) || !f.boolAt(f.mod, "aal2", `select public.is_moderator()`) {
		t.Fatal("moderator: aal1 must be refused, aal2 allowed once the role requires MFA")
	}
	// With no role required, enrolled admins keep their powers at aal1.
	f.owner(`delete from casus_meta.mfa_required_roles`)
	if n, err := f.countAt(f.admin, "aal1", profiles); err != nil || n != 4 {
		t.Fatalf("no role required: %d profiles, %v", n, err)
	}

	// A forged aal claim is impossible (tokens are signed); what users can reach is not:
	// the role list and the factors stay out of their hands.
	for _, sql := range []string{
		`insert into casus_meta.mfa_required_roles values ('user')`,
		`delete from casus_meta.mfa_required_roles`,
		`select secret from auth.mfa_factors`,
		`update auth.mfa_factors set status = 'verified'`,
	} {
		_, err := f.try(f.admin, sql)
		mustState(t, err, "42501")
	}
}
