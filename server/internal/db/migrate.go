package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/tern/v2/migrate"

	casussql "casus/sql"
)

// A migration set is one tern sequence with its own version table, both kept out of the
// exposed public schema. The platform (the Supabase-compatible core) always comes first;
// the study app follows unless it is switched off.
type migrationSet struct {
	name  string
	files fs.FS
	dir   string
	table string
}

var (
	platformSet = migrationSet{"platform", casussql.Platform, "platform", "casus_meta.platform_version"}
	appSet      = migrationSet{"app", casussql.App, "app", "casus_meta.app_version"}
)

// legacyVersionTable is the single sequence used before the platform/app split.
const legacyVersionTable = "casus_meta.schema_version"

// legacyOrder maps each migration of the single legacy sequence (1-based) to the split
// sets' migrations it became: old 009 (realtime) became the platform's realtime objects
// and the app's publication of its tables; old 010 was an empty placeholder.
var legacyOrder = [][]string{
	1: {"platform"}, 2: {"platform"}, 3: {"platform"}, 4: {"app"}, 5: {"app"}, 6: {"app"},
	7: {"app"}, 8: {"app"}, 9: {"platform", "app"}, 10: nil, 11: {"app"}, 12: {"platform"},
	13: {"app"}, 14: {"app"},
}

// Versions is where each migration set stands after Migrate. App is 0 when the app is off.
type Versions struct {
	Platform int32
	App      int32
}

func (v Versions) String() string { return fmt.Sprintf("platform %d, app %d", v.Platform, v.App) }

// Migrate applies every pending platform migration and, when withApp is set, every pending
// app migration. Re-running it is a no-op. A session-level advisory lock serialises
// concurrent migrators of one database.
func Migrate(ctx context.Context, databaseURL string, withApp bool) (Versions, error) {
	var v Versions
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return v, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "select pg_advisory_lock(7266580)"); err != nil {
		return v, err
	}
	defer conn.Exec(context.Background(), "select pg_advisory_unlock(7266580)") //nolint:errcheck
	if _, err := conn.Exec(ctx, "create schema if not exists casus_meta"); err != nil {
		return v, err
	}
	if err := carryOverLegacyVersion(ctx, conn); err != nil {
		return v, fmt.Errorf("carry over the legacy migration version: %w", err)
	}
	if v.Platform, err = applySet(ctx, conn, platformSet, latestVersion); err != nil {
		return v, err
	}
	if withApp {
		if v.App, err = applySet(ctx, conn, appSet, latestVersion); err != nil {
			return v, err
		}
	}
	// Tell schema caches (ours and any PostgREST) that the schema may have changed.
	if _, err := conn.Exec(ctx, "notify pgrst, 'reload schema'"); err != nil {
		return v, err
	}
	return v, nil
}

// latestVersion asks applySet for every migration of a set.
const latestVersion = -1

// applySet migrates one set up to target (latestVersion: all of it). Roles and their
// grants are cluster-wide, so migrating two databases of one cluster at once (two
// deployments starting together, tests of several packages) can update the same role row
// in both; PostgreSQL then fails one with "tuple concurrently updated". That migration
// rolled back as a whole, so it is simply tried again.
func applySet(ctx context.Context, conn *pgx.Conn, set migrationSet, target int32) (int32, error) {
	for attempt := 1; ; attempt++ {
		v, err := applySetOnce(ctx, conn, set, target)
		if err == nil || attempt == 10 || !concurrentCatalogUpdate(err) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(time.Duration(attempt*50+rand.IntN(200)) * time.Millisecond): // apart, not in step
		}
	}
}

// concurrentCatalogUpdate tells the transient failure of two sessions updating one
// catalog row (a role, a grant) at once.
func concurrentCatalogUpdate(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "XX000" && strings.Contains(pg.Message, "concurrently updated")
	}
	return strings.Contains(err.Error(), "tuple concurrently updated")
}

// applySetOnce is one attempt of applySet.
func applySetOnce(ctx context.Context, conn *pgx.Conn, set migrationSet, target int32) (int32, error) {
	m, err := migrate.NewMigrator(ctx, conn, set.table)
	if err != nil {
		return 0, err
	}
	sub, err := fs.Sub(set.files, set.dir)
	if err != nil {
		return 0, err
	}
	if err := m.LoadMigrations(sub); err != nil {
		return 0, fmt.Errorf("load %s migrations: %w", set.name, err)
	}
	if target == latestVersion {
		err = m.Migrate(ctx)
	} else {
		err = m.MigrateTo(ctx, target)
	}
	if err != nil {
		return 0, fmt.Errorf("%s migrations: %w", set.name, err)
	}
	return m.GetCurrentVersion(ctx)
}

// carryOverLegacyVersion turns a database migrated by the single legacy sequence into one
// the split sets recognise: the legacy version N says the first N legacy migrations ran,
// so each set's version is how many of its migrations those were. Both version tables are
// written and the legacy table dropped in one transaction; a database without the legacy
// table (new, or already carried over) is left alone.
func carryOverLegacyVersion(ctx context.Context, conn *pgx.Conn) error {
	var legacy bool
	if err := conn.QueryRow(ctx, "select to_regclass($1) is not null", legacyVersionTable).Scan(&legacy); err != nil || !legacy {
		return err
	}
	var n int32
	if err := conn.QueryRow(ctx, "select coalesce(max(version), 0) from "+legacyVersionTable).Scan(&n); err != nil {
		return err
	}
	if int(n) >= len(legacyOrder) {
		return fmt.Errorf("legacy version %d is newer than this binary knows (%d)", n, len(legacyOrder)-1)
	}
	applied := map[string]int32{}
	for i := int32(1); i <= n; i++ {
		for _, set := range legacyOrder[i] {
			applied[set]++
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	for _, set := range []migrationSet{platformSet, appSet} {
		if _, err := tx.Exec(ctx, fmt.Sprintf("create table %s (version int4 not null)", set.table)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf("insert into %s (version) values ($1)", set.table), applied[set.name]); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, "drop table "+legacyVersionTable); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// MigrationFiles lists every migration of the platform and, when withApp is set, the app,
// as "set/name" with its content: what a migrated database was built from (test templates
// are keyed by it).
func MigrationFiles(withApp bool) (map[string][]byte, error) {
	sets := []migrationSet{platformSet}
	if withApp {
		sets = append(sets, appSet)
	}
	out := map[string][]byte{}
	for _, set := range sets {
		entries, err := fs.ReadDir(set.files, set.dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			b, err := fs.ReadFile(set.files, set.dir+"/"+e.Name())
			if err != nil {
				return nil, err
			}
			out[set.name+"/"+e.Name()] = b
		}
	}
	return out, nil
}
