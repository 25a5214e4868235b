package aigw

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// claimHolder is this server process's mark of life in PostgreSQL: one dedicated
// connection holding a session advisory lock on a random key. A grading claim records the
// key; PostgreSQL drops a session's locks when its process dies, so a claim whose key no
// session holds belongs to a server that is gone and may be taken again at once, instead
// of after staleClaim. While the connection is being re-made (a database restart), this
// process's own claims look abandoned; recording stays exact because a grade is written
// only from the claim it was made under.
type claimHolder struct {
	key    int64
	cancel context.CancelFunc
	done   chan struct{}
}

// heldSQL is true when the claim's holder is alive (its advisory lock is held). A bigint
// advisory key shows in pg_locks as classid (high 32 bits) and objid (low), objsubid 1.
const heldSQL = `exists (select 1 from pg_locks l
	where l.locktype = 'advisory' and l.granted and l.objsubid = 1
	  and l.database = (select oid from pg_database where datname = current_database())
	  and ((l.classid::int8 << 32) | l.objid::int8) = case_submissions.grading_holder)`

func holdClaims(url string, log *slog.Logger) *claimHolder {
	var b [8]byte
	_, _ = rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	h := &claimHolder{key: int64(binary.BigEndian.Uint64(b[:]) >> 1), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for ctx.Err() == nil {
			if err := h.hold(ctx, url); err != nil && ctx.Err() == nil {
				log.Warn("ai gateway: grading claims lost their holder connection; retrying", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return h
}

// hold takes the lock and keeps the session open until ctx ends or the connection dies.
func (h *claimHolder) hold(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", h.key); err != nil {
		return err
	}
	// Nothing is ever notified here: this returns when ctx ends or the session breaks.
	_, err = conn.WaitForNotification(ctx)
	return err
}

func (h *claimHolder) Close() error {
	h.cancel()
	<-h.done
	return nil
}
