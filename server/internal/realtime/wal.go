package realtime

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Change capture from the WAL. Each database has one logical replication slot (pgoutput,
// publications supabase_realtime and supabase_realtime_messages_publication), read by one
// elected instance: the holder of a session advisory lock. The holder decodes committed
// transactions, delivers them to its own subscribers and hands them to the other instances
// over the bus (NOTIFY, large bodies by reference), and only then confirms the slot's
// position. When the holder dies its lock goes with its session; another instance takes
// the lock within walElectEvery and resumes from the slot's confirmed position, so every
// committed change is handed on at least once, and each instance drops what it has already
// delivered (walPos), so a subscriber receives it once.

const (
	// walElectEvery is how often an instance that does not hold the slot tries to.
	walElectEvery = 500 * time.Millisecond
	// walStatusEvery is how often the holder confirms its position (and checks its lock).
	walStatusEvery = time.Second
	// walPublications are the publications the slot streams.
	walPublications = "supabase_realtime,supabase_realtime_messages_publication"
	// walBatchDelay and walBatchRows bound how long, and for how many rows, committed
	// transactions wait to be handed on together.
	walBatchDelay = 5 * time.Millisecond
	walBatchRows  = 2000
	// walDeliverChunk is how many changes one delivery (changeFeed.deliver) takes.
	walDeliverChunk = 200
	// walMaxTxnRows bounds the rows of one transaction that are delivered (and held in
	// memory until its commit): a bulk load of a published table is not pushed row by row.
	walMaxTxnRows = 20000
	// walVisibleWait bounds how long a batch waits for its commits to become visible
	// (awaitVisible); normally they are at once, or within a few milliseconds.
	walVisibleWait = 10 * time.Second
	// walLockName names the advisory lock of the slot holder (advisory locks are per
	// database, like the slot).
	walLockName = "casus.realtime.slot"
	// replicationReadyTimeout bounds how long a channel that asked for replication_ready
	// waits before it is closed with an error, as Supabase does (one minute).
	replicationReadyTimeout = time.Minute
)

// walPos orders the changes of the stream: the commit LSN of a transaction, then the rank
// of the change in it.
type walPos struct {
	LSN uint64 `json:"l"`
	Seq int    `json:"s"`
}

func (p walPos) after(q walPos) bool {
	return p.LSN > q.LSN || (p.LSN == q.LSN && p.Seq > q.Seq)
}

// walReader elects the slot holder and, while this instance holds it, streams the slot.
type walReader struct {
	s    *Server
	slot string
	// enabled is false when the server cannot decode logically (wal_level is not logical).
	enabled bool
	// streaming is set while this instance holds the slot and its stream is open.
	streaming atomic.Bool
	// filterFrom is when the stream may start dropping unwatched tables' rows (used
	// by the stream only).
	filterFrom time.Time
	// seenHolder is when another instance last announced that it streams (unix nanos).
	seenHolder atomic.Int64

	types   sync.Map // type oid → regtype text, for the values decoded in SQL
	deliver chan walBatch
	last    walPos // the last change delivered here (deliverLoop's own)
}

func maxPos(p, q walPos) walPos {
	if q.after(p) {
		return q
	}
	return p
}

// walBatch is what one hand-off carries: changes and broadcast messages in stream order.
type walBatch struct {
	Changes  []walChange  `json:"c,omitempty"`
	Messages []walMessage `json:"m,omitempty"`
}

type walChange struct {
	Pos    walPos `json:"p"`
	change `json:"x"`
}

type walMessage struct {
	Pos walPos `json:"p"`
	ID  string `json:"i"`
	// Topic without the "realtime:" prefix, as realtime.messages stores it.
	Topic   string `json:"t"`
	Event   string `json:"e"`
	Private bool   `json:"v,omitempty"`
	Payload []byte `json:"d,omitempty"` // JSON
	Binary  []byte `json:"b,omitempty"`
	IsBin   bool   `json:"x,omitempty"`
}

var slotUnsafe = regexp.MustCompile(`[^a-z0-9_]`)

// slotName is the slot of a database: casus_<database>, in the characters a slot name
// allows, at most 63 of them.
func slotName(database string) string {
	name := "casus_" + slotUnsafe.ReplaceAllString(strings.ToLower(database), "_")
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

func newWALReader(s *Server) *walReader {
	return &walReader{s: s, deliver: make(chan walBatch, 1024)}
}

// WALLevelMessage is the line a server whose PostgreSQL does not decode logically logs at
// start.
func WALLevelMessage(level string) string {
	return fmt.Sprintf("realtime: PostgreSQL has wal_level=%s, not logical: database changes and broadcasts from the database will not be delivered; "+
		"run ALTER SYSTEM SET wal_level = logical and restart PostgreSQL (make run and the private cluster set it themselves)", level)
}

// prepare checks wal_level and makes sure the slot exists, so that every change committed
// once New returns is kept for the holder, whichever instance it is and whenever it reads.
func (w *walReader) prepare(ctx context.Context) error {
	var level, database string
	if err := w.s.d.Owner.QueryRow(ctx, "select current_setting('wal_level'), current_database()").Scan(&level, &database); err != nil {
		return fmt.Errorf("realtime: read wal_level: %w", err)
	}
	w.slot = slotName(database)
	if level != "logical" {
		w.s.d.Log.Error(WALLevelMessage(level))
		return nil
	}
	w.enabled = true
	if err := w.ensureSlot(ctx, w.s.d.Owner.QueryRow); err != nil {
		return err
	}
	return nil
}

type queryRower func(ctx context.Context, sql string, args ...any) pgx.Row

// ensureSlot creates the slot when it is missing, and recreates it when PostgreSQL has
// invalidated it (it needed more WAL than max_slot_wal_keep_size keeps).
func (w *walReader) ensureSlot(ctx context.Context, q queryRower) error {
	var status *string
	err := q(ctx, "select wal_status from pg_replication_slots where slot_name = $1", w.slot).Scan(&status)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return fmt.Errorf("realtime: read replication slot %s: %w", w.slot, err)
	case status != nil && *status == "lost":
		w.s.d.Log.Error("realtime: replication slot " + w.slot + " was invalidated: it pinned more WAL than max_slot_wal_keep_size while no instance read it, " +
			"so changes committed meanwhile are lost to realtime subscribers; recreating it")
		var ok bool
		if err := q(ctx, "select true from pg_drop_replication_slot($1)", w.slot).Scan(&ok); err != nil {
			return fmt.Errorf("realtime: drop invalidated slot %s: %w", w.slot, err)
		}
	default:
		return nil
	}
	var ok bool
	err = q(ctx, "select true from pg_create_logical_replication_slot($1, 'pgoutput')", w.slot).Scan(&ok)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42710" {
		return nil // another instance created it meanwhile
	}
	if err != nil {
		return fmt.Errorf("realtime: create replication slot %s (the database role needs the REPLICATION attribute): %w", w.slot, err)
	}
	return nil
}

func (w *walReader) start() {
	w.s.wg.Add(1)
	go func() {
		defer w.s.wg.Done()
		w.deliverLoop()
	}()
	if !w.enabled {
		return
	}
	w.s.wg.Add(1)
	go func() {
		defer w.s.wg.Done()
		w.elect()
	}()
}

// ready reports whether changes are being read from the WAL, here or by another instance.
func (w *walReader) ready() bool {
	if w.streaming.Load() {
		return true
	}
	seen := w.seenHolder.Load()
	return seen != 0 && time.Since(time.Unix(0, seen)) < presenceTimeout
}

// sawHolder records another instance's announcement that it streams the slot.
func (w *walReader) sawHolder() { w.seenHolder.Store(time.Now().UnixNano()) }

// awaitHolder returns once this starting instance has heard from the instance that
// streams the slot, when another one does (the holder answers a starting instance's
// sync at once), or after listenWait. Until then a join here would not wait for the
// holder to learn its tables (interest.await), and the holder, which drops the changes
// of tables no announcement names, would drop those the join asked for: a change
// committed after the join's reply was lost when a client joined a just-started
// instance.
func (w *walReader) awaitHolder(ctx context.Context) {
	if !w.enabled {
		return
	}
	recheck := time.NewTicker(100 * time.Millisecond)
	defer recheck.Stop()
	deadline := time.NewTimer(listenWait)
	defer deadline.Stop()
	for !w.ready() {
		// No other instance streams: nothing to hear (a new holder starts by handing on
		// every table for interestGrace).
		var active bool
		err := w.s.d.Owner.QueryRow(ctx, "select coalesce(bool_or(active), false) from pg_replication_slots where slot_name = $1", w.slot).Scan(&active)
		if err != nil || !active {
			return
		}
		select {
		case <-recheck.C: // heard from the holder, taken the slot over, or the holder gone
		case <-deadline.C:
			w.s.d.Log.Warn("realtime: starting before hearing from the instance that reads the WAL; changes may be missed until it answers")
			return
		case <-ctx.Done():
			return
		}
	}
}

// elect tries to take the holder's lock, and streams the slot while it holds it.
func (w *walReader) elect() {
	ctx := w.s.ctx
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, w.s.d.DatabaseURL)
		if err == nil {
			err = w.holdAndStream(ctx, conn)
			_ = conn.Close(context.Background())
		}
		if err != nil && ctx.Err() == nil {
			w.s.d.Log.Warn("realtime: WAL reader stopped; retrying", "slot", w.slot, "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(walElectEvery):
		}
	}
}

// holdAndStream waits on lockConn until it holds the lock, then streams until an error.
func (w *walReader) holdAndStream(ctx context.Context, lockConn *pgx.Conn) error {
	for {
		var held bool
		if err := lockConn.QueryRow(ctx, "select pg_try_advisory_lock(hashtextextended($1, 0))", walLockName).Scan(&held); err != nil {
			return err
		}
		if held {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(walElectEvery):
		}
	}
	if err := w.ensureSlot(ctx, lockConn.QueryRow); err != nil {
		return err
	}
	return w.stream(ctx, lockConn)
}

// stream reads the slot from its confirmed position and hands on each batch of committed
// transactions before confirming it.
func (w *walReader) stream(ctx context.Context, lockConn *pgx.Conn) error {
	cfg, err := pgconn.ParseConfig(w.s.d.DatabaseURL)
	if err != nil {
		return err
	}
	cfg.RuntimeParams["replication"] = "database"
	cfg.RuntimeParams["DateStyle"] = "ISO, MDY" // decodeValue reads dates in ISO form
	cfg.RuntimeParams["application_name"] = "casus realtime " + w.slot
	rc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer rc.Close(context.Background())
	err = pglogrepl.StartReplication(ctx, rc, w.slot, 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names '" + walPublications + "'"},
	})
	if err != nil {
		return fmt.Errorf("start replication: %w", err)
	}
	// A holder that takes over from another may not yet have read every announcement
	// made just before (interest.go): it filters nothing for a while.
	w.filterFrom = time.Time{}
	if w.s.presence.hasPeers(presenceTimeout) {
		w.filterFrom = time.Now().Add(interestGrace)
	}
	w.streaming.Store(true)
	defer w.streaming.Store(false)
	w.s.bus.send(envelope{Kind: "r"})
	w.s.d.Log.Info("realtime: reading changes from the WAL", "slot", w.slot)

	var (
		relations = map[uint32]*pglogrepl.RelationMessage{}
		confirmed pglogrepl.LSN // handed on: safe to confirm
		// decodedEnd is the server's end position last seen between transactions while
		// some were pending: confirmed once they are handed on.
		decodedEnd pglogrepl.LSN
		txn        *walTxn
		pending    []*walTxn // committed, not yet handed on
		// pendingSince is when the first of pending committed; pendingRows their rows.
		pendingSince time.Time
		pendingRows  int
		nextStat     = time.Now().Add(walStatusEvery)
	)
	handOn := func() error {
		if len(pending) == 0 {
			return nil
		}
		if err := w.handOn(ctx, pending); err != nil {
			return err
		}
		confirmed = max(confirmed, pending[len(pending)-1].end, decodedEnd)
		pending, pendingRows = pending[:0], 0
		return nil
	}
	sendStatus := func() error {
		nextStat = time.Now().Add(walStatusEvery)
		if confirmed != 0 {
			if err := pglogrepl.SendStandbyStatusUpdate(ctx, rc, pglogrepl.StandbyStatusUpdate{WALWritePosition: confirmed}); err != nil {
				return err
			}
		}
		// Still the holder? Should the lock's session have died, another instance may be
		// electing itself: stop, and let the slot (busy until we close) keep it waiting.
		_, err := lockConn.Exec(ctx, "select 1")
		return err
	}
	for {
		if time.Now().After(nextStat) {
			if err := sendStatus(); err != nil {
				return err
			}
		}
		// Committed transactions are handed on together, walBatchDelay after the first of
		// them (or at walBatchRows rows): one hand-off, one NOTIFY and one wake-up per
		// batch rather than per commit.
		wait := time.Until(nextStat)
		if len(pending) > 0 {
			wait = time.Until(pendingSince.Add(walBatchDelay))
			if wait <= 0 || pendingRows >= walBatchRows {
				if err := handOn(); err != nil {
					return err
				}
				continue
			}
		}
		rctx, cancel := context.WithTimeout(ctx, wait)
		raw, err := rc.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if pgconn.Timeout(err) {
				if err := handOn(); err != nil {
					return err
				}
				continue
			}
			return err
		}
		if e, ok := raw.(*pgproto3.ErrorResponse); ok {
			return fmt.Errorf("replication: %s", e.Message)
		}
		cd, ok := raw.(*pgproto3.CopyData)
		if !ok || len(cd.Data) == 0 {
			continue
		}
		data := cd.Data
		switch data[0] {
		case pglogrepl.PrimaryKeepaliveMessageByteID:
			ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
			if err != nil {
				return err
			}
			// Between transactions, everything the server has decoded up to its end
			// position has been received (changes of tables outside the publications are
			// not sent at all): once handed on, confirming it lets PostgreSQL recycle that
			// WAL. A keepalive does not hand the batch on early: the walsender sends one
			// each time it catches up, which under load is after nearly every commit, and
			// handing on at each made batches of one transaction (a NOTIFY and a
			// visibility query each), which fell behind the commits.
			if txn == nil {
				if len(pending) == 0 {
					confirmed = max(confirmed, ka.ServerWALEnd)
				} else {
					decodedEnd = max(decodedEnd, ka.ServerWALEnd)
				}
			}
			if ka.ReplyRequested {
				if err := sendStatus(); err != nil {
					return err
				}
			}
		case pglogrepl.XLogDataByteID:
			xld, err := pglogrepl.ParseXLogData(data[1:])
			if err != nil {
				return err
			}
			msg, err := pglogrepl.Parse(xld.WALData)
			if err != nil {
				return fmt.Errorf("decode WAL: %w", err)
			}
			switch m := msg.(type) {
			case *pglogrepl.RelationMessage:
				relations[m.RelationID] = m
			case *pglogrepl.BeginMessage:
				txn = &walTxn{lsn: uint64(m.FinalLSN), xid: m.Xid, commit: m.CommitTime}
			case *pglogrepl.CommitMessage:
				if txn != nil {
					txn.end = m.TransactionEndLSN
					if txn.skipped > 0 {
						w.s.d.Log.Warn("realtime: a transaction changed more rows than are delivered; the rest were not sent",
							"delivered", walMaxTxnRows, "skipped", txn.skipped)
					}
					if len(pending) == 0 {
						pendingSince = time.Now()
					}
					pending = append(pending, txn)
					pendingRows += len(txn.rows)
				}
				txn = nil
			case *pglogrepl.InsertMessage:
				txn.add(relations[m.RelationID], "INSERT", m.Tuple, nil)
			case *pglogrepl.UpdateMessage:
				txn.add(relations[m.RelationID], "UPDATE", m.NewTuple, m.OldTuple)
			case *pglogrepl.DeleteMessage:
				txn.add(relations[m.RelationID], "DELETE", nil, m.OldTuple)
			}
		}
	}
}

// walTxn is one decoded transaction: its rows still in PostgreSQL's text form.
type walTxn struct {
	lsn    uint64
	xid    uint32
	end    pglogrepl.LSN
	commit time.Time
	rows   []walRow
	// skipped counts the rows past walMaxTxnRows, not delivered.
	skipped int
}

type walRow struct {
	rel      *pglogrepl.RelationMessage
	typ      string
	new, old *pglogrepl.TupleData
}

func (t *walTxn) add(rel *pglogrepl.RelationMessage, typ string, newTuple, oldTuple *pglogrepl.TupleData) {
	if t == nil || rel == nil {
		return
	}
	if len(t.rows) >= walMaxTxnRows {
		t.skipped++
		return
	}
	t.rows = append(t.rows, walRow{rel: rel, typ: typ, new: newTuple, old: oldTuple})
}

// handOn turns committed transactions into a batch, delivers it here and sends it to the
// other instances; it returns once the NOTIFYs are committed.
func (w *walReader) handOn(ctx context.Context, txns []*walTxn) error {
	var b walBatch
	// The rows of tables no subscription in the cluster names (here or announced by a
	// peer, interest.go) are dropped before any decoding, row check or NOTIFY, so that
	// writes nobody watches cost only the walsender's decoding. (A subscription is
	// registered, and with peers acknowledged by this holder, before its join is
	// answered, so it cannot miss a later change.)
	alone := !w.s.presence.hasPeers(presenceTimeout)
	watched := w.s.interest.watched(w.filterFrom)
	dec := newValueDecoder(w)
	type pendingChange struct {
		i        int
		rec, old map[string]*jsonValue
	}
	var pcs []pendingChange
	for _, t := range txns {
		for seq, r := range t.rows {
			pos := walPos{LSN: t.lsn, Seq: seq}
			if r.rel.Namespace == "realtime" && r.rel.RelationName == "messages" {
				if m, ok := messageFromRow(r); ok {
					m.Pos = pos
					b.Messages = append(b.Messages, m)
				}
				continue
			}
			if !watched(r.rel.RelationName) {
				continue
			}
			c := walChange{Pos: pos, change: change{Schema: r.rel.Namespace, Table: r.rel.RelationName, Type: r.typ, Commit: t.commit}}
			oldVals := dec.tuple(r.rel, r.old, nil)
			newVals := dec.tuple(r.rel, r.new, oldVals)
			b.Changes = append(b.Changes, c)
			pcs = append(pcs, pendingChange{len(b.Changes) - 1, newVals, oldVals})
		}
	}
	if err := dec.resolve(ctx); err != nil {
		return err
	}
	for _, pc := range pcs {
		b.Changes[pc.i].Record = materialise(pc.rec)
		b.Changes[pc.i].OldRecord = materialise(pc.old)
	}
	if len(b.Changes) == 0 && len(b.Messages) == 0 {
		return nil
	}
	if len(b.Changes) > 0 {
		// The row checks of the delivery read the changed rows as each subscriber: they
		// must see these transactions committed (see awaitVisible).
		xids := make([]uint32, len(txns))
		for i, t := range txns {
			xids[i] = t.xid
		}
		if err := w.awaitVisible(ctx, xids); err != nil {
			return err
		}
	}
	w.enqueue(b)
	if alone {
		return nil
	}
	return w.s.bus.sendWAL(ctx, b)
}

// awaitVisible returns once every transaction of xids is visible to a new snapshot.
// PostgreSQL writes (and flushes) a commit record, which the walsender may decode and send
// at once, before it marks the transaction committed for other sessions: a row check made
// in that window does not find the inserted row, and the change was dropped for its
// subscriber without a trace (about 1% under load). The trigger path never saw this,
// because NOTIFY is delivered only after the commit is visible. xids are 32-bit, as
// pgoutput sends them: the epoch is that of the snapshot's xmax, within 2^31 of it.
func (w *walReader) awaitVisible(ctx context.Context, xids []uint32) error {
	ids := make([]int64, len(xids))
	for i, x := range xids {
		ids[i] = int64(x)
	}
	const q = `
		with s as (select pg_current_snapshot() as snap, pg_snapshot_xmax(pg_current_snapshot())::text::int8 as m)
		select count(*) from s, unnest($1::int8[]) as u(x),
			lateral (select ((s.m >> 32) << 32) | u.x as f) as g
		where not pg_visible_in_snapshot((case
			when g.f - s.m > 2147483648 then g.f - 4294967296
			when s.m - g.f > 2147483648 then g.f + 4294967296
			else g.f end)::text::xid8, s.snap)`
	// Bounded, so that the stream cannot stall for good (were the slot a synchronous
	// standby, the commit would wait for this reader): past it the batch goes on, and its
	// subscribers may miss it, which is logged.
	deadline := time.Now().Add(walVisibleWait)
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 20*time.Millisecond) {
		var invisible int64
		if err := w.s.d.Owner.QueryRow(ctx, q, ids).Scan(&invisible); err != nil {
			return fmt.Errorf("realtime: await visible commits: %w", err)
		}
		if invisible == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			w.s.d.Log.Warn("realtime: committed transactions still invisible; delivering anyway, their row checks may fail",
				"transactions", invisible, "waited", walVisibleWait)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// enqueue hands a batch to this instance's delivery, in order.
func (w *walReader) enqueue(b walBatch) {
	select {
	case w.deliver <- b:
	case <-w.s.ctx.Done():
	}
}

// deliverLoop delivers batches, from this instance's stream or another's, once each: a
// change at or before the last one delivered here was handed on twice (a new holder
// resumed from the confirmed position) and is dropped.
func (w *walReader) deliverLoop() {
	drainBatches(w.s.ctx, w.deliver, func(batches []walBatch) {
		var changes []change
		var messages []walMessage
		for _, b := range batches {
			// Within one batch positions are distinct; against earlier batches they are
			// compared with the last position delivered before this one.
			start, last := w.last, w.last
			for _, c := range b.Changes {
				if c.Pos.after(start) {
					last = maxPos(last, c.Pos)
					changes = append(changes, c.change)
				}
			}
			for _, m := range b.Messages {
				if m.Pos.after(start) {
					last = maxPos(last, m.Pos)
					messages = append(messages, m)
				}
			}
			w.last = last
		}
		// At most walDeliverChunk changes per delivery: a delivery pushes nothing until all
		// its row checks are answered, so a backlog delivered as one would hold every
		// change back until the last.
		for len(changes) > 0 {
			n := min(len(changes), walDeliverChunk)
			w.s.changes.deliver(changes[:n])
			changes = changes[n:]
		}
		if len(messages) > 0 {
			w.s.changes.deliverMessages(messages)
		}
	})
}
