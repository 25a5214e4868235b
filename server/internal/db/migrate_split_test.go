package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func latest(t *testing.T) db.Versions {
	t.Helper()
	files, err := db.MigrationFiles(true)
	if err != nil {
		t.Fatal(err)
	}
	var v db.Versions
	for name := range files {
		if name[:len("platform/")] == "platform/" {
			v.Platform++
		} else {
			v.App++
		}
	}
	return v
}

// A database migrated by the single legacy sequence (version 14, the last before the
// split) is carried over: its migrations are not run again, only the new ones are.
func TestMigrateCarriesOverTheLegacyVersionTable(t *testing.T) {
	url := pgtest.Empty(t)
	ctx := context.Background()
	// What the last legacy binary left: the migrations that were its 1..14 (platform 1-5,
	// app 1-9) under one version table at 14.
	if err := db.MigrateSetsTo(ctx, url, 5, 9); err != nil {
		t.Fatal(err)
	}
	c := connect(t, url)
	for _, q := range []string{
		"drop table casus_meta.platform_version",
		"drop table casus_meta.app_version",
		"create table casus_meta.schema_version (version int4 not null)",
		"insert into casus_meta.schema_version values (14)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	v, err := db.Migrate(ctx, url, true)
	if err != nil {
		t.Fatalf("migrate a legacy database: %v", err)
	}
	if want := latest(t); v != want {
		t.Fatalf("versions after carry-over = %v, want %v", v, want)
	}
	var legacy bool
	if err := c.QueryRow(ctx, "select to_regclass('casus_meta.schema_version') is not null").Scan(&legacy); err != nil || legacy {
		t.Fatalf("legacy version table still there: %v %v", legacy, err)
	}
	var watch bool
	if err := c.QueryRow(ctx, "select exists (select 1 from pg_event_trigger where evtname = 'pgrst_ddl_watch')").Scan(&watch); err != nil || !watch {
		t.Fatalf("the platform's new migration did not run: %v %v", watch, err)
	}
	// The study app stays default-deny after the carry-over too.
	if _, err := c.Exec(ctx, "create table public.after_split (id int)"); err != nil {
		t.Fatal(err)
	}
	var anon bool
	if err := c.QueryRow(ctx, "select has_table_privilege('anon', 'public.after_split', 'SELECT')").Scan(&anon); err != nil || anon {
		t.Fatalf("study database: anon may read a new table: %v %v", anon, err)
	}
}

// Without the app, the database is the Supabase core: no study tables, and a table made by
// hand in public gets Supabase's default grants (RLS then decides the rows).
func TestPlatformOnlyDatabaseHasSupabaseDefaults(t *testing.T) {
	url := pgtest.NewPlatform(t)
	ctx := context.Background()
	c := connect(t, url)
	var study bool
	if err := c.QueryRow(ctx, "select to_regclass('public.user_profiles') is not null").Scan(&study); err != nil || study {
		t.Fatalf("platform-only database has the study schema: %v %v", study, err)
	}
	// Another app's own user_profiles does not collide with anything.
	if _, err := c.Exec(ctx, "create table public.user_profiles (id bigint primary key, nickname text)"); err != nil {
		t.Fatal(err)
	}
	v, err := db.Migrate(ctx, url, false)
	if err != nil || v.App != 0 || v.Platform != latest(t).Platform {
		t.Fatalf("re-migrate without the app: %v %v", v, err)
	}
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		var ok bool
		if err := c.QueryRow(ctx, "select has_table_privilege($1, 'public.user_profiles', 'SELECT, INSERT, UPDATE, DELETE')", role).Scan(&ok); err != nil || !ok {
			t.Fatalf("%s lacks the default privileges on a new table: %v %v", role, ok, err)
		}
	}
}
