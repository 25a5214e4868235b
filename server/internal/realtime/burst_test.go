package realtime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A burst of changes for many subscribers (one transaction, so the feed reads them as
// one batch and checks the rows concurrently) reaches each subscriber exactly: its own
// rows, in commit order, and nobody else's, for inserts, updates and deletes.
func TestBurstOfChangesReachesEachSubscriberInOrder(t *testing.T) {
	srv := startServer(t)
	const users, rows = 24, 3
	uid := func(i int) string { return fmt.Sprintf("%08d-0000-4000-8000-%012d", i+1000, i) }
	clients := make([]*client, users)
	for i := range clients {
		clients[i] = dial(t, srv, "2.0.0")
		sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "rt_notes", "filter": "owner=eq." + uid(i)}}}
		if r := clients[i].join("realtime:burst", sub, token(t, srv, uid(i), time.Hour)); r["status"] != "ok" {
			t.Fatalf("join %d: %v", i, r)
		}
		clients[i].next("realtime:burst", "system", 5*time.Second)
	}
	// An unfiltered subscriber of one identity sees that identity's rows only.
	spy := dial(t, srv, "2.0.0")
	all := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "rt_notes"}}}
	if r := spy.join("realtime:spy", all, token(t, srv, uid(0), time.Hour)); r["status"] != "ok" {
		t.Fatalf("spy join: %v", r)
	}
	spy.next("realtime:spy", "system", 5*time.Second)

	// Three bursts, each one transaction the feed reads as one batch; each waits for the
	// previous one's deliveries (a row's check reads the row as it is when checked).
	ctx := context.Background()
	burst := func(stmts func(tx pgx.Tx) error) {
		t.Helper()
		if err := pgx.BeginFunc(ctx, srv.Deps.Owner, stmts); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(c *client, topic string, i int, typ string) {
		t.Helper()
		var got, want []string
		for r := range rows {
			m := c.next(topic, "postgres_changes", 20*time.Second)
			d := m["data"].(map[string]any)
			rec, _ := d["record"].(map[string]any)
			if rec == nil { // a delete carries the key only
				rec = map[string]any{}
			}
			if rec["owner"] != nil && rec["owner"] != uid(i) {
				t.Fatalf("subscriber %d received another's row: %v", i, d)
			}
			got = append(got, fmt.Sprintf("%v %v", d["type"], rec["body"]))
			if typ == "DELETE" {
				want = append(want, "DELETE <nil>")
			} else {
				want = append(want, fmt.Sprintf("%s %d-%d", typ, i, r))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("subscriber %d got %v, want %v", i, got, want)
		}
	}
	expectAll := func(typ string) {
		t.Helper()
		for i, c := range clients {
			expect(c, "realtime:burst", i, typ)
		}
		expect(spy, "realtime:spy", 0, typ)
	}
	mine := "owner::text like '%-0000-4000-8000-%'"
	burst(func(tx pgx.Tx) error {
		for r := range rows {
			for i := range users {
				if _, err := tx.Exec(ctx, "insert into public.rt_notes (owner, body) values ($1, $2)", uid(i), fmt.Sprintf("%d-%d", i, r)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	expectAll("INSERT")
	burst(func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "update public.rt_notes set score = 1 where "+mine)
		return err
	})
	expectAll("UPDATE")
	burst(func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "delete from public.rt_notes where "+mine)
		return err
	})
	expectAll("DELETE")
	spy.none("realtime:spy", "postgres_changes", 300*time.Millisecond)
	clients[1].none("realtime:burst", "postgres_changes", 100*time.Millisecond)
}
