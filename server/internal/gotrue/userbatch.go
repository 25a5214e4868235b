package gotrue

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
)

// GET /user runs on every page load. Under concurrent load its cost is dominated by the
// round trip to PostgreSQL, so the lookups that arrive while earlier ones are in flight
// are answered together by one statement (SessionUserIdentitiesBatch). Nothing is cached:
// each answer is read after its request arrived, so a signed-out session or a deleted user
// is refused exactly as with one statement per request. An idle server answers a lone
// request at once (a batch of one), so no request waits for company.

const (
	userLookupWorkers  = 4  // statements in flight at once
	userLookupMaxBatch = 64 // requests answered by one statement at most
)

type userLookup struct {
	sid, uid pgtype.UUID
	reply    chan userLookupResult // buffered: a worker never blocks on a gone requester
}

type userLookupResult struct {
	rows []dbsqlc.SessionUserIdentitiesBatchRow
	err  error
}

type userBatcher struct {
	q    *dbsqlc.Queries
	reqs chan *userLookup
	done <-chan struct{} // closed when the workers stop
}

func newUserBatcher(ctx context.Context, q *dbsqlc.Queries) *userBatcher {
	b := &userBatcher{q: q, reqs: make(chan *userLookup, 1024), done: ctx.Done()}
	for range userLookupWorkers {
		go b.work(ctx)
	}
	return b
}

// lookup returns the rows of SessionUserIdentitiesBatch that answer one session and user.
func (b *userBatcher) lookup(ctx context.Context, sid, uid pgtype.UUID) ([]dbsqlc.SessionUserIdentitiesBatchRow, error) {
	l := &userLookup{sid: sid, uid: uid, reply: make(chan userLookupResult, 1)}
	select {
	case b.reqs <- l:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.done:
		return nil, context.Canceled
	}
	select {
	case r := <-l.reply:
		return r.rows, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.done:
		return nil, context.Canceled
	}
}

func (b *userBatcher) work(ctx context.Context) {
	batch := make([]*userLookup, 0, userLookupMaxBatch)
	for {
		batch = batch[:0]
		select {
		case l := <-b.reqs:
			batch = append(batch, l)
		case <-ctx.Done():
			return
		}
	drain:
		for len(batch) < userLookupMaxBatch {
			select {
			case l := <-b.reqs:
				batch = append(batch, l)
			default:
				break drain
			}
		}
		b.answer(ctx, batch)
	}
}

func (b *userBatcher) answer(ctx context.Context, batch []*userLookup) {
	p := dbsqlc.SessionUserIdentitiesBatchParams{
		SessionIds: make([]pgtype.UUID, len(batch)),
		UserIds:    make([]pgtype.UUID, len(batch)),
	}
	for i, l := range batch {
		p.SessionIds[i], p.UserIds[i] = l.sid, l.uid
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	rows, err := b.q.SessionUserIdentitiesBatch(qctx, p)
	cancel()
	results := make([][]dbsqlc.SessionUserIdentitiesBatchRow, len(batch))
	if err == nil {
		for _, r := range rows {
			i := int(r.RequestIndex) - 1
			if i < 0 || i >= len(batch) {
				continue // cannot happen: the statement numbers its own input
			}
			results[i] = append(results[i], r)
		}
	}
	for i, l := range batch {
		l.reply <- userLookupResult{rows: results[i], err: err}
	}
}
