// Package ratelimit keeps token buckets in PostgreSQL (casus_meta.rate_limits), so every
// Casus instance on one database spends from the same bucket: a request refused by one
// instance is refused by all of them. Taking a token is one statement (an upsert on a
// small unlogged table); expired buckets are deleted in the background.
package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/time/rate"
)

// queryTimeout bounds one bucket round trip; past it the local fallback answers.
const queryTimeout = 2 * time.Second

// Limiter is a set of token buckets keyed by string, shared through the database.
type Limiter struct {
	db      *pgxpool.Pool
	enabled bool
	log     *slog.Logger
	// local answers while the database does not (a failed or timed-out statement), so a
	// limit still holds on this instance instead of failing open.
	local localBuckets
}

// New returns a limiter on db; a disabled one allows everything.
func New(db *pgxpool.Pool, enabled bool, log *slog.Logger) *Limiter {
	return &Limiter{db: db, enabled: enabled, log: log, local: localBuckets{m: map[string]*rate.Limiter{}}}
}

// take spends one token from key's bucket (capacity n, refilled n per `per`) if it has
// one. The refill is computed from the database's clock, so instances whose clocks
// differ still agree. No row comes back when the bucket is empty (the conflict's WHERE
// leaves it untouched).
const take = `insert into casus_meta.rate_limits as b (key, tokens, capacity, refill, updated_at, full_at)
values ($1, $2::int - 1, $2::int, $3::float8, now(), now() + make_interval(secs => 1 / $3::float8))
on conflict (key) do update set
  tokens = least(b.capacity, b.tokens + extract(epoch from now() - b.updated_at) * b.refill) - 1,
  capacity = excluded.capacity, refill = excluded.refill, updated_at = now(),
  full_at = now() + make_interval(secs => (b.capacity - (least(b.capacity, b.tokens + extract(epoch from now() - b.updated_at) * b.refill) - 1)) / b.refill)
where least(b.capacity, b.tokens + extract(epoch from now() - b.updated_at) * b.refill) >= 1
returning tokens`

// Allow spends one request from key's bucket, which holds n and refills n per `per`,
// and reports whether there was one to spend.
func (l *Limiter) Allow(key string, n int, per time.Duration) bool {
	if !l.enabled || n <= 0 {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	var left float64
	err := l.db.QueryRow(ctx, take, key, n, float64(n)/per.Seconds()).Scan(&left)
	switch {
	case err == nil:
		return true
	case errors.Is(err, pgx.ErrNoRows):
		return false
	}
	l.log.Warn("rate limit: the shared bucket is unreachable; this instance counts alone", "err", err)
	return l.local.allow(key, n, per)
}

// Exhausted reports whether key's bucket is empty, without taking from it.
func (l *Limiter) Exhausted(key string) bool {
	if !l.enabled {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	var empty bool
	err := l.db.QueryRow(ctx, `select least(capacity, tokens + extract(epoch from now() - updated_at) * refill) < 1
		from casus_meta.rate_limits where key = $1`, key).Scan(&empty)
	switch {
	case err == nil:
		return empty
	case errors.Is(err, pgx.ErrNoRows):
		return false
	}
	l.log.Warn("rate limit: the shared bucket is unreachable; this instance counts alone", "err", err)
	return l.local.exhausted(key)
}

// Prune deletes the buckets that have refilled (they answer as missing ones do).
func (l *Limiter) Prune(ctx context.Context) error {
	_, err := l.db.Exec(ctx, "delete from casus_meta.rate_limits where full_at < now()")
	return err
}

// Run prunes every interval until ctx ends. Every instance may run it: deleting a full
// bucket twice is harmless.
func (l *Limiter) Run(ctx context.Context, every time.Duration) {
	if !l.enabled {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := l.Prune(ctx); err != nil && ctx.Err() == nil {
				l.log.Warn("rate limit: pruning buckets", "err", err)
			}
		}
	}
}

// localBuckets is the in-process fallback: a token bucket per key, bounded in number.
type localBuckets struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func (b *localBuckets) get(key string, n int, per time.Duration) *rate.Limiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	lim := b.m[key]
	if lim == nil && n > 0 {
		if len(b.m) > 100_000 {
			b.m = map[string]*rate.Limiter{} // bound memory under a flood of keys
		}
		lim = rate.NewLimiter(rate.Every(per/time.Duration(n)), n)
		b.m[key] = lim
	}
	return lim
}

func (b *localBuckets) allow(key string, n int, per time.Duration) bool {
	return b.get(key, n, per).Allow()
}

func (b *localBuckets) exhausted(key string) bool {
	lim := b.get(key, 0, 0)
	return lim != nil && lim.Tokens() < 1
}
