package realtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"casus/server/internal/config"
	"casus/server/internal/db"
	"casus/server/internal/testutil/testserver"
)

// Changes are read from the WAL, not captured on the commit path: no realtime trigger
// remains on any table (the capture trigger was on each published one, and one on
// realtime.messages announced broadcasts), and the changes still arrive.
func TestNoTriggerOnPublishedTables(t *testing.T) {
	srv := startServer(t)
	ctx := context.Background()
	var triggers []string
	rows, err := srv.Deps.Owner.Query(ctx, `
		select tg.tgrelid::regclass::text || ' ' || tg.tgname
		from pg_trigger tg
		join pg_proc p on p.oid = tg.tgfoid
		where p.pronamespace = 'realtime'::regnamespace and not tg.tgisinternal`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		triggers = append(triggers, s)
	}
	if rows.Err() != nil || len(triggers) > 0 {
		t.Fatalf("triggers on published tables: %v (%v)", triggers, rows.Err())
	}
	// The slot of this database exists and one instance streams it.
	var active bool
	if err := srv.Deps.Owner.QueryRow(ctx, `select active from pg_replication_slots
		where slot_name = 'casus_' || current_database() and plugin = 'pgoutput'`).Scan(&active); err != nil {
		t.Fatalf("slot: %v", err)
	}
	c := dial(t, srv, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"}}}
	c.join("realtime:wal", sub, token(t, srv, userA, time.Hour))
	insertAs(t, srv, userA, "from the WAL")
	got := c.next("realtime:wal", "postgres_changes", 5*time.Second)
	if rec := got["data"].(map[string]any)["record"].(map[string]any); rec["body"] != "from the WAL" {
		t.Fatalf("got %v", got)
	}
}

// Values arrive as to_jsonb renders the row, whatever their type: the WAL carries them as
// text, and the server converts them (itself for common types, through PostgreSQL for the
// rest).
func TestWALValuesAsToJSONB(t *testing.T) {
	srv := startServer(t)
	ctx := context.Background()
	if _, err := srv.Deps.Owner.Exec(ctx, `
		create type public.rt_mood as enum ('calm', 'busy');
		create table public.rt_types (
			id int primary key, b bool, i2 int2, i8 int8, f4 float4, f8 float8, n numeric, nn numeric,
			t text, vc varchar(10), ch char(3), u uuid, j json, jb jsonb, d date, ts timestamp, tz timestamptz,
			tm time, iv interval, arr int[], tarr text[], mood public.rt_mood, by bytea, inf float8, big numeric);
		grant select on public.rt_types to anon;
		alter publication supabase_realtime add table public.rt_types;
		select realtime.sync_triggers();`); err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_types"}}}
	for start := time.Now(); c.join("realtime:types", sub, "")["status"] != "ok"; {
		if time.Since(start) > 10*time.Second {
			t.Fatal("rt_types never became subscribable")
		}
		time.Sleep(20 * time.Millisecond) // polling the condition
	}
	if _, err := srv.Deps.Owner.Exec(ctx, `insert into public.rt_types values (1, true, -2, 9007199254740993, 1.5, 0.1, 12.340, 'NaN',
		'é "q"', 'v', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1,  "a": [1, 2]}', '{"x": null}', '2024-02-29',
		'2024-02-29 10:11:12.5', '2024-02-29 10:11:12.123456+02', '23:59:59', '1 day 2 hours', '{1,2,NULL}', '{"a b","c"}',
		'busy', '\x00ff', 'Infinity', 123456789012345678901234567890.5)`); err != nil {
		t.Fatal(err)
	}
	got := c.next("realtime:types", "postgres_changes", 5*time.Second)
	rec := got["data"].(map[string]any)["record"].(map[string]any)
	var want map[string]any
	var raw []byte
	if err := srv.Deps.Owner.QueryRow(ctx, "select to_jsonb(r) from public.rt_types r where id = 1").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if !reflect.DeepEqual(rec[k], w) {
			t.Errorf("%s: got %#v, want %#v", k, rec[k], w)
		}
	}
	if len(rec) != len(want) {
		t.Errorf("record %v, want %v", rec, want)
	}
}

// The instance reading the slot goes away: another takes the slot over within a few
// seconds and resumes from the confirmed position. A change committed in the gap reaches a
// subscriber of the surviving instance once, and so does the one committed just before
// the holder stopped (which the new holder reads again, as the holder had not yet
// confirmed it).
func TestSlotFailoverDeliversEveryChangeOnce(t *testing.T) {
	one := startServer(t)
	ctx := context.Background()
	// one streams the slot before two starts, so one holds it.
	waitFor(t, 10*time.Second, "the slot to be streamed", func() bool {
		var active bool
		_ = one.Deps.Owner.QueryRow(ctx, "select active from pg_replication_slots where slot_name = 'casus_' || current_database()").Scan(&active)
		return active
	})
	two := testserver.Start(t, func(c *config.Config) { c.DatabaseURL = one.Deps.DatabaseURL })
	b := dial(t, two, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"}}}
	if r := b.join("realtime:failover", sub, token(t, two, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	insertAs(t, one, userA, "before")
	if got := b.next("realtime:failover", "postgres_changes", 5*time.Second); body(got) != "before" {
		t.Fatalf("got %v", got)
	}
	one.Stop()
	stopped := time.Now()
	insertAs(t, two, userA, "in the gap")
	got := b.next("realtime:failover", "postgres_changes", 10*time.Second)
	if body(got) != "in the gap" {
		t.Fatalf("after failover got %v first, want the change made in the gap", got)
	}
	if took := time.Since(stopped); took > 5*time.Second {
		t.Errorf("the slot was taken over after %s", took)
	}
	insertAs(t, two, userA, "after")
	if got := b.next("realtime:failover", "postgres_changes", 5*time.Second); body(got) != "after" {
		t.Fatalf("got %v, want each change once, in order", got)
	}
	b.none("realtime:failover", "postgres_changes", time.Second)
}

// A channel that opts in with config.broadcast.replication_ready receives Supabase's
// system message once changes are read from the WAL; without the opt-in, none.
func TestReplicationReadyMessage(t *testing.T) {
	srv := testserver.Start(t, nil)
	c := dial(t, srv, "2.0.0")
	cfg := map[string]any{"broadcast": map[string]any{"replication_ready": true}}
	if r := c.join("realtime:ready-check", cfg, ""); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	got := c.next("realtime:ready-check", "system", 10*time.Second)
	want := map[string]any{"extension": "system", "status": "ok", "message": "Replication connection established", "channel": "ready-check"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("system message %v, want %v", got, want)
	}
	c.none("realtime:ready-check", "system", 700*time.Millisecond)
	plain := dial(t, srv, "2.0.0")
	plain.join("realtime:plain", map[string]any{}, "")
	plain.none("realtime:plain", "system", time.Second)
}

// A broadcast from the database (realtime.send) travels through the WAL to a subscriber
// of another instance than the one reading the slot.
func TestDatabaseBroadcastReachesOtherInstance(t *testing.T) {
	one := startServer(t)
	two := testserver.Start(t, func(c *config.Config) { c.DatabaseURL = one.Deps.DatabaseURL })
	b := dial(t, two, "2.0.0")
	if r := b.join("realtime:from-db", map[string]any{}, ""); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	if _, err := one.Deps.Owner.Exec(context.Background(), `select realtime.send('{"n": 1}', 'ping', 'from-db', false)`); err != nil {
		t.Fatal(err)
	}
	got := b.next("realtime:from-db", "broadcast", 5*time.Second)
	if got["event"] != "ping" || got["payload"].(map[string]any)["n"] != float64(1) {
		t.Fatalf("got %v", got)
	}
	b.none("realtime:from-db", "broadcast", 700*time.Millisecond)
}

func body(push map[string]any) any {
	return push["data"].(map[string]any)["record"].(map[string]any)["body"]
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); {
		if time.Since(start) > within {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond) // polling the condition
	}
}

// On a PostgreSQL without wal_level=logical the server says so at start, in one line that
// tells what to do, and still serves (broadcast and presence need no replication).
func TestWALLevelNotLogicalSaidAtStart(t *testing.T) {
	if _, err := db.FindPostgresBin(); err != nil {
		t.Skip("this test needs the PostgreSQL server binaries (initdb, pg_ctl):", err)
	}
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} { // the postgres user must reach it
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cluster, err := db.StartPrivateClusterWith(context.Background(), quiet, dir, map[string]string{"wal_level": "replica"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	if _, err := db.Migrate(context.Background(), cluster.URL("postgres"), true); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	srv := testserver.StartLogging(t, func(c *config.Config) { c.DatabaseURL = cluster.URL("postgres") }, &logs)
	want := "realtime: PostgreSQL has wal_level=replica, not logical: database changes and broadcasts from the database will not be delivered; " +
		"run ALTER SYSTEM SET wal_level = logical and restart PostgreSQL"
	if n := strings.Count(logs.String(), want); n != 1 {
		t.Fatalf("the wal_level line appears %d times in the log:\n%s", n, logs.String())
	}
	c := dial(t, srv, "2.0.0")
	if r := c.join("realtime:still-serving", map[string]any{}, ""); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
}

// lockedBuffer is a bytes.Buffer the server's goroutines may write concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
