package realtime

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/deps"
	"casus/server/internal/testutil/pgtest"
)

// PostgreSQL writes a transaction's commit record, which the walsender may decode and
// stream at once, before it makes the commit visible to other sessions. The delivery's
// row checks read the changed row as the subscriber, so a batch handed on in that window
// was dropped for its subscribers, silently (about 1% of the bench's changes under load).
// Here the window is held open: the transaction has inserted its row and not committed
// yet. Its batch may reach the delivery only once a new snapshot sees the row.
func TestWALBatchHandedOnOnlyOnceVisible(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, err := pgxpool.New(ctx, pgtest.Empty(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "create table public.t (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	s := &Server{d: deps.Deps{Owner: pool, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, instance: "test", ctx: ctx, subs: newSubIndex()}
	s.bus = newBus(s)
	// With a peer that announced nothing yet, every change is handed on (alone, or once
	// peers announced what they watch, unwatched tables are dropped).
	s.presence = newPresenceState(s)
	s.presence.heartbeat("peer")
	s.changes = newChangeFeed(s)
	s.interest = newInterest(s)
	w := newWALReader(s)

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	var xid8 string
	if err := tx.QueryRow(ctx, "insert into public.t values (1) returning pg_current_xact_id()::text").Scan(&xid8); err != nil {
		t.Fatal(err)
	}
	full, err := strconv.ParseUint(xid8, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	rel := &pglogrepl.RelationMessage{RelationID: 1, Namespace: "public", RelationName: "t",
		Columns: []*pglogrepl.RelationMessageColumn{{Name: "id", DataType: oidInt4}}}
	row := &pglogrepl.TupleData{ColumnNum: 1, Columns: []*pglogrepl.TupleDataColumn{{DataType: pglogrepl.TupleDataTypeText, Length: 1, Data: []byte("1")}}}
	txn := &walTxn{lsn: 1, xid: uint32(full), commit: time.Now(), rows: []walRow{{rel: rel, typ: "INSERT", new: row}}}
	handed := make(chan error, 1)
	go func() { handed <- w.handOn(ctx, []*walTxn{txn}) }()

	visible := func() bool {
		var ok bool
		if err := pool.QueryRow(ctx, "select exists(select 1 from public.t where id = 1)").Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	select {
	case <-w.deliver:
		if !visible() {
			t.Fatal("a batch reached the delivery while its transaction was invisible: the row checks would not find its row")
		}
	case <-time.After(500 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-w.deliver:
		if len(b.Changes) != 1 || string(b.Changes[0].Record["id"]) != "1" {
			t.Fatalf("batch %+v", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the batch was not handed on after its transaction committed")
	}
	if err := <-handed; err != nil {
		t.Fatal(err)
	}
}
