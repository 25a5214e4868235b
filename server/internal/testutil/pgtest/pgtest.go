// Package pgtest gives each test a fresh, migrated PostgreSQL database on the real
// server named by CASUS_TEST_DATABASE_URL. Databases are cloned from a template that is
// migrated once per migration set, so a new database costs one CREATE DATABASE.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

// AdminURL is the maintenance connection used to create and drop test databases.
func AdminURL() string {
	if u := os.Getenv("CASUS_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// New creates a database migrated with the platform and the study app for the test,
// dropped when the test ends, and returns its owner connection string.
func New(t testing.TB) string {
	t.Helper()
	return newDatabase(t, true)
}

// NewPlatform is New without the study app (CASUS_APP=none): the Supabase core only.
func NewPlatform(t testing.TB) string {
	t.Helper()
	return newDatabase(t, false)
}

// Empty creates a database with no migration applied (for tests of migrating itself).
func Empty(t testing.TB) string {
	t.Helper()
	return create(t, "")
}

func newDatabase(t testing.TB, withApp bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tpl, err := template(ctx, withApp)
	if err != nil {
		t.Fatalf("pgtest: template database: %v", err)
	}
	return create(t, tpl)
}

// create makes a database for the test, cloned from tpl (or a plain one when tpl is
// empty), dropped with its login role when the test ends.
func create(t testing.TB, tpl string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := "casus_t_" + randomHex(6)
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v (is PostgreSQL running? scripts/ensure-postgres.sh starts it)", AdminURL(), err)
	}
	defer admin.Close(ctx)
	stmt := "create database " + name
	if tpl != "" {
		stmt += " template " + tpl
	}
	if _, err := admin.Exec(ctx, stmt); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_ = db.DropDatabase(ctx, c, name)
		// The database's login role (db.OpenPools creates it) is cluster-wide.
		_, _ = c.Exec(ctx, "drop role if exists "+pgx.Identifier{db.LoginRole(name)}.Sanitize())
	})
	return withDatabase(AdminURL(), name)
}

func withDatabase(url, name string) string { return replaceDB(url, name) }

// replaceDB swaps the path of a postgres:// URL for the database name.
func replaceDB(url, name string) string {
	// postgres://user@host:port/db?query
	q := ""
	if i := strings.IndexByte(url, '?'); i >= 0 {
		url, q = url[:i], url[i:]
	}
	slash := strings.LastIndexByte(url, '/')
	if slash < len("postgres://") {
		return url + "/" + name + q
	}
	return url[:slash+1] + name + q
}

// template returns the name of a migrated template database for the current
// migrations, creating it once under an advisory lock (packages test in parallel).
func template(ctx context.Context, withApp bool) (string, error) {
	hash, err := migrationsHash(withApp)
	if err != nil {
		return "", err
	}
	name := "casus_tpl_" + hash
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "select pg_advisory_lock(7266581)"); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), "select pg_advisory_unlock(7266581)") //nolint:errcheck
	var ready bool
	if err := admin.QueryRow(ctx, "select exists(select 1 from pg_database where datname = $1 and datistemplate)", name).Scan(&ready); err != nil {
		return "", err
	}
	if ready {
		return name, nil
	}
	// A half-built template of this set (an earlier run died while migrating) is
	// dropped; templates of other migration sets are left alone, since another test
	// process may be cloning from them right now.
	_, _ = admin.Exec(ctx, fmt.Sprintf("drop database if exists %s with (force)", name))
	if _, err := admin.Exec(ctx, "create database "+name); err != nil {
		return "", err
	}
	if _, err := db.Migrate(ctx, replaceDB(AdminURL(), name), withApp); err != nil {
		_, _ = admin.Exec(ctx, "drop database if exists "+name+" with (force)")
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("alter database %s is_template true", name)); err != nil {
		return "", err
	}
	return name, nil
}

func migrationsHash(withApp bool) (string, error) {
	files, err := db.MigrationFiles(withApp)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
