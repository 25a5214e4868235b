package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// twoInstances starts the instance that reads the slot (it streams before the second
// exists) and a second one on the same database.
func twoInstances(t *testing.T) (holder, peer *testserver.Server) {
	holder = startServer(t)
	c := dial(t, holder, "2.0.0")
	defer c.ws.Close()
	c.join("realtime:holder-ready", map[string]any{"broadcast": map[string]any{"replication_ready": true}}, "")
	c.next("realtime:holder-ready", "system", 10*time.Second)
	peer = testserver.Start(t, func(cfg *config.Config) { cfg.DatabaseURL = holder.Deps.DatabaseURL })
	return holder, peer
}

// publish creates published tables readable by authenticated users and waits until
// each server accepts a subscription to each.
func publish(t *testing.T, owner *testserver.Server, servers []*testserver.Server, tables ...string) {
	t.Helper()
	var ddl strings.Builder
	for _, tbl := range tables {
		fmt.Fprintf(&ddl, `create table public.%[1]s (id bigserial primary key, body text not null);
			alter table public.%[1]s enable row level security;
			create policy readable on public.%[1]s for select to authenticated using (true);
			grant select on public.%[1]s to authenticated;
			alter publication supabase_realtime add table public.%[1]s;`, tbl)
	}
	ddl.WriteString("select realtime.sync_triggers();")
	if _, err := owner.Deps.Owner.Exec(context.Background(), ddl.String()); err != nil {
		t.Fatal(err)
	}
	for _, srv := range servers {
		c := dial(t, srv, "2.0.0")
		for _, tbl := range tables {
			// A filter on a column the table lacks: the join succeeds once the table is
			// known, and makes no subscription (so the table stays unnamed).
			sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": tbl, "filter": "nope=eq.1"}}}
			waitFor(t, 10*time.Second, tbl+" subscribable", func() bool {
				return c.join("realtime:probe-"+tbl, sub, "")["status"] == "ok"
			})
		}
		c.ws.Close()
	}
}

// busTables records, from the bus's NOTIFYs, which tables' changes the WAL holder handed
// on to the other instances (per table; "" counts the batches).
func busTables(t *testing.T, srv *testserver.Server) func() map[string]int {
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := pgx.Connect(ctx, srv.Deps.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "listen casus_realtime"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				return
			}
			var p struct {
				Envelopes []struct {
					Kind string          `json:"k"`
					Body json.RawMessage `json:"d"`
				} `json:"v"`
				StoredID int64 `json:"id"`
			}
			_ = json.Unmarshal([]byte(n.Payload), &p)
			if p.StoredID != 0 {
				var body []byte
				if srv.Deps.Owner.QueryRow(context.Background(), "select body from realtime.bus_messages where id = $1", p.StoredID).Scan(&body) == nil {
					_ = json.Unmarshal(body, &p)
				}
			}
			for _, e := range p.Envelopes {
				if e.Kind != "w" {
					continue
				}
				var batch struct {
					Changes []struct {
						X struct {
							Table string `json:"t"`
						} `json:"x"`
					} `json:"c"`
				}
				_ = json.Unmarshal(e.Body, &batch)
				mu.Lock()
				seen[""]++
				for _, c := range batch.Changes {
					seen[c.X.Table]++
				}
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; _ = conn.Close(context.Background()) })
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// With several instances, the WAL holder hands on only the changes of tables some
// subscription in the cluster names. It used to hand on every published change (the
// app's conversations, watched by nobody, were most of the bytes), which under 600
// students fell behind the commits and delayed pushes by seconds.
func TestHolderHandsOnOnlyWatchedTables(t *testing.T) {
	holder, peer := twoInstances(t)
	publish(t, holder, []*testserver.Server{holder, peer}, "rt_watched", "rt_unwatched")
	seen := busTables(t, holder)
	c := dial(t, peer, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_watched"}}}
	if r := c.join("realtime:watch", sub, token(t, peer, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	ctx := context.Background()
	for i := range 20 {
		if _, err := holder.Deps.Owner.Exec(ctx, "insert into public.rt_unwatched (body) values ($1)", fmt.Sprint("quiet ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := holder.Deps.Owner.Exec(ctx, "insert into public.rt_watched (body) values ('loud')"); err != nil {
		t.Fatal(err)
	}
	if got := c.next("realtime:watch", "postgres_changes", 5*time.Second); body(got) != "loud" {
		t.Fatalf("got %v", got)
	}
	// The watched change came after the unwatched ones in the WAL, so their hand-off (if
	// any) came before it on the bus, and this test's listener reads the bus in order. The
	// peer may be faster than that listener: wait until it has read the watched change.
	waitFor(t, 5*time.Second, "the watched change read from the bus", func() bool { return seen()["rt_watched"] > 0 })
	got := seen()
	if got["rt_watched"] != 1 || got["rt_unwatched"] > 0 {
		t.Fatalf("handed on per table %v, want rt_watched once and rt_unwatched never", got)
	}
}

// A join on an instance that does not read the slot, for a table no subscription named
// before, receives a change committed right after its reply: the holder acknowledged the
// table before the reply was sent.
func TestJoinOnPeerSeesNextChangeOfNewTable(t *testing.T) {
	holder, peer := twoInstances(t)
	tables := make([]string, 12)
	for i := range tables {
		tables[i] = fmt.Sprintf("rt_fresh_%d", i)
	}
	publish(t, holder, []*testserver.Server{holder, peer}, tables...)
	ctx := context.Background()
	c := dial(t, peer, "2.0.0")
	for i, tbl := range tables {
		topic := fmt.Sprintf("realtime:fresh-%d", i)
		sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": tbl}}}
		if r := c.join(topic, sub, token(t, peer, userA, time.Hour)); r["status"] != "ok" {
			t.Fatalf("join %s: %v", tbl, r)
		}
		if _, err := holder.Deps.Owner.Exec(ctx, "insert into public."+tbl+" (body) values ('right after')"); err != nil {
			t.Fatal(err)
		}
		if got := c.next(topic, "postgres_changes", 5*time.Second); body(got) != "right after" {
			t.Fatalf("%s: got %v", tbl, got)
		}
	}
}

// Commits in quick succession are handed on together. The walsender sends a keepalive
// each time it catches up, which under load is after nearly every commit; the holder used
// to hand its batch on at each, so batches held one transaction (a NOTIFY and a visibility
// query each), and at 600 students the hand-off fell seconds behind the commits.
func TestQuickCommitsHandedOnTogether(t *testing.T) {
	holder, peer := twoInstances(t)
	publish(t, holder, []*testserver.Server{holder, peer}, "rt_burst")
	seen := busTables(t, holder)
	c := dial(t, peer, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_burst"}}}
	if r := c.join("realtime:burst", sub, token(t, peer, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	const commits = 60
	ctx := context.Background()
	// One by one, each waited for: the walsender catches up after each commit.
	start := time.Now()
	for i := range commits {
		if _, err := holder.Deps.Owner.Exec(ctx, "insert into public.rt_burst (body) values ($1)", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range commits {
		if got := c.next("realtime:burst", "postgres_changes", 5*time.Second); body(got) != fmt.Sprint(i) {
			t.Fatalf("change %d: got %v", i, got)
		}
	}
	span := time.Since(start)
	// This test's listener may read the bus after the peer did.
	waitFor(t, 5*time.Second, "every change read from the bus", func() bool { return seen()["rt_burst"] >= commits })
	got := seen()
	if got["rt_burst"] != commits {
		t.Fatalf("handed on %d changes, want %d", got["rt_burst"], commits)
	}
	// A batch stays open 5 ms (walBatchDelay) after its first commit arrives, and every
	// commit arrived within span: there can be no more batches than span holds windows.
	// (On a busy machine, where commits are slow, the bound is loose, never wrong.)
	most := int(span/(5*time.Millisecond)) + 1
	if got[""] > most {
		t.Fatalf("%d commits in %s handed on in %d batches, want them grouped (at most %d)", commits, span, got[""], most)
	}
	t.Logf("%d commits in %s: %d batches (at most %d)", commits, span, got[""], most)
}
