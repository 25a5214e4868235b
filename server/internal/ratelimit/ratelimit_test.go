package ratelimit_test

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/ratelimit"
	"casus/server/internal/testutil/pgtest"
)

func pool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// Two limiters on one database (two instances) share each bucket: of many requests sent
// at once through both, exactly the bucket's capacity is allowed.
func TestBucketSharedByInstances(t *testing.T) {
	url := pgtest.NewPlatform(t)
	a := ratelimit.New(pool(t, url), true, slog.Default())
	b := ratelimit.New(pool(t, url), true, slog.Default())
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l.Allow("signin|192.0.2.1", 7, time.Hour) {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != 7 {
		t.Fatalf("%d of 40 allowed, want the bucket's 7", got)
	}
	if !a.Exhausted("signin|192.0.2.1") || !b.Exhausted("signin|192.0.2.1") {
		t.Fatal("the emptied bucket is not exhausted on both instances")
	}
	if a.Exhausted("signin|192.0.2.2") || !b.Allow("signin|192.0.2.2", 7, time.Hour) {
		t.Fatal("another key's bucket is not full")
	}
}

// An empty bucket refills at its rate, and pruning deletes only buckets that are full again.
func TestRefillAndPrune(t *testing.T) {
	url := pgtest.NewPlatform(t)
	db := pool(t, url)
	l := ratelimit.New(db, true, slog.Default())
	if !l.Allow("fast", 1, 300*time.Millisecond) || l.Allow("fast", 1, 300*time.Millisecond) {
		t.Fatal("a bucket of one allowed other than once")
	}
	if !l.Allow("slow", 1, time.Hour) {
		t.Fatal("a fresh bucket refused")
	}
	for start := time.Now(); !l.Allow("fast", 1, 300*time.Millisecond); {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the bucket never refilled")
		}
		time.Sleep(20 * time.Millisecond) // polling the condition
	}
	for start := time.Now(); ; {
		if err := l.Prune(t.Context()); err != nil {
			t.Fatal(err)
		}
		var keys []string
		rows, _ := db.Query(t.Context(), "select key from casus_meta.rate_limits order by key")
		for rows.Next() {
			var k string
			_ = rows.Scan(&k)
			keys = append(keys, k)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		if len(keys) == 1 && keys[0] == "slow" {
			break
		}
		if len(keys) != 2 || time.Since(start) > 10*time.Second {
			t.Fatalf("buckets after pruning: %v, want only the empty one", keys)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !l.Exhausted("slow") || l.Exhausted("fast") {
		t.Fatal("pruning changed what the buckets answer")
	}
}

// Without the database (a closed pool) a limit still holds, counted by this instance.
func TestFallsBackToLocalBuckets(t *testing.T) {
	db := pool(t, pgtest.NewPlatform(t))
	l := ratelimit.New(db, true, slog.New(slog.DiscardHandler))
	db.Close()
	if !l.Allow("k", 2, time.Hour) || !l.Allow("k", 2, time.Hour) || l.Allow("k", 2, time.Hour) {
		t.Fatal("the local fallback did not hold the limit")
	}
	if !l.Exhausted("k") {
		t.Fatal("the local bucket is not exhausted")
	}
}
