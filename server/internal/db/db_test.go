package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

func TestMigrateIsIdempotent(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	v1, err := db.Migrate(ctx, url, true)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := db.Migrate(ctx, url, true)
	if err != nil || v1 != v2 || v1.Platform < 2 || v1.App < 2 {
		t.Fatalf("re-run: v1=%v v2=%v err=%v", v1, v2, err)
	}
}

func TestAsRoleSetsRoleAndClaims(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	secret := []byte("0123456789abcdef0123456789abcdef")
	pools, err := db.OpenPools(ctx, url, secret, db.PoolOptions{OwnerConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	claims := &authn.Claims{Role: authn.RoleAuthenticated, Raw: map[string]any{"sub": "6a1f1d3e-0c9b-4b6c-9a59-3c1f5d2c7e11", "role": "authenticated", "email": "ana@example.ro"}}
	claims.Subject = "6a1f1d3e-0c9b-4b6c-9a59-3c1f5d2c7e11"
	var role, uid, authRole, email, method string
	err = db.AsRole(ctx, pools.API, claims, db.ReadOnly, db.RequestInfo{Method: "GET", Path: "/rest/v1/x"}, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "select current_user, auth.uid()::text, auth.role(), auth.jwt()->>'email', current_setting('request.method')").Scan(&role, &uid, &authRole, &email, &method)
	})
	if err != nil {
		t.Fatal(err)
	}
	if role != "authenticated" || uid != claims.Subject || authRole != "authenticated" || email != "ana@example.ro" || method != "GET" {
		t.Fatalf("got role=%s uid=%s authRole=%s email=%s method=%s", role, uid, authRole, email, method)
	}
	// The API pool itself is the unprivileged authenticator.
	var who string
	var super bool
	if err := pools.API.QueryRow(ctx, "select current_user, rolsuper from pg_roles where rolname = current_user").Scan(&who, &super); err != nil {
		t.Fatal(err)
	}
	if who != pools.API.Config().ConnConfig.User || !strings.HasSuffix(who, "_authenticator") || super {
		t.Fatalf("API pool runs as %s (super=%v)", who, super)
	}
	// A signed token naming another role cannot switch into it.
	bad := &authn.Claims{Role: "postgres"}
	err = db.AsRole(ctx, pools.API, bad, db.ReadOnly, db.RequestInfo{}, func(pgx.Tx) error { return nil })
	var notAllowed db.ErrRoleNotAllowed
	if !errors.As(err, &notAllowed) {
		t.Fatalf("role postgres: err=%v", err)
	}
}
