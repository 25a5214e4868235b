package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// Two deployments on one cluster, each with its own JWT secret: each gets its own login
// role, starting one does not change the other's password, and neither login can enter
// the other's database (where it could switch to service_role).
func TestLoginRolePerDeployment(t *testing.T) {
	ctx := context.Background()
	urlA, urlB := pgtest.New(t), pgtest.New(t)
	secretA := []byte("secret-of-deployment-a-0123456789abcdef")
	secretB := []byte("secret-of-deployment-b-0123456789abcdef")
	poolsB, err := db.OpenPools(ctx, urlB, secretB, db.PoolOptions{OwnerConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer poolsB.Close()
	poolsA, err := db.OpenPools(ctx, urlA, secretA, db.PoolOptions{OwnerConns: 2}) // A starts last
	if err != nil {
		t.Fatal(err)
	}
	defer poolsA.Close()

	cfgA, cfgB := poolsA.API.Config().ConnConfig, poolsB.API.Config().ConnConfig
	if cfgA.User == cfgB.User {
		t.Fatalf("both deployments log in as %s", cfgA.User)
	}
	connect := func(database, user, password string) error {
		c := cfgA.Copy()
		c.Database, c.User, c.Password = database, user, password
		conn, err := pgx.ConnectConfig(ctx, c)
		if err == nil {
			conn.Close(ctx)
		}
		return err
	}
	// B's own login still works after A started (A did not re-derive B's password).
	if err := connect(cfgB.Database, cfgB.User, db.AuthenticatorPassword(secretB, cfgB.User)); err != nil {
		t.Fatalf("B's login after A started: %v", err)
	}
	// A's operator knows A's secret, hence A's login and password: B's database is closed.
	if err := connect(cfgB.Database, cfgA.User, db.AuthenticatorPassword(secretA, cfgA.User)); err == nil {
		t.Fatal("A's login role entered B's database")
	}
	// (Whether a wrong password is refused depends on pg_hba.conf; the test cluster
	// trusts loopback, so the database privilege is what this test can observe.)
	if db.AuthenticatorPassword(secretA, cfgB.User) == db.AuthenticatorPassword(secretB, cfgB.User) {
		t.Fatal("the password does not depend on the secret")
	}
}

func TestLoginRoleNames(t *testing.T) {
	if got := db.LoginRole("casus"); got != "casus_authenticator" {
		t.Fatal(got)
	}
	for _, name := range []string{"Casus-Prod", strings.Repeat("x", 60), `we"ird`} {
		r := db.LoginRole(name)
		if len(r) > 63 || strings.ContainsAny(r, `"-`) || r != strings.ToLower(r) || r == db.LoginRole("casus") {
			t.Fatalf("%q -> %q", name, r)
		}
	}
}
