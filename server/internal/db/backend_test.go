package db_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// minorFaults is a process's minor page faults so far, or -1 when /proc does not show
// it (PostgreSQL on another host or in another PID namespace).
func minorFaults(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.ParseInt(f[7], 10, 64) // minflt is field 10; f starts at field 3
	if err != nil {
		return -1
	}
	return n
}

// faultsPerStatement runs a statement that builds a ~20 kB JSON body, like a 20-row
// select=* list, and returns the backend's minor page faults per run.
func faultsPerStatement(t *testing.T, ctx context.Context, conn *pgx.Conn) float64 {
	t.Helper()
	const q = `select json_agg(r)::text from (select g, repeat('Text al spetei. ', 50) as body, now() as at,
		gen_random_uuid() as id from generate_series(1, 20) g) r`
	var pid int
	if err := conn.QueryRow(ctx, "select pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var body string
	for i := 0; i < 5; i++ { // warm the caches the first runs fill
		if err := conn.QueryRow(ctx, q).Scan(&body); err != nil {
			t.Fatal(err)
		}
	}
	before := minorFaults(pid)
	if before < 0 {
		t.Skip("the PostgreSQL backend's /proc entry is not visible from here")
	}
	const runs = 200
	for i := 0; i < runs; i++ {
		if err := conn.QueryRow(ctx, q).Scan(&body); err != nil {
			t.Fatal(err)
		}
	}
	return float64(minorFaults(pid)-before) / runs
}

// A backend prepared by KeepBackendHeap keeps the memory of one statement for the next,
// instead of returning it to the kernel and faulting it back in each time.
func TestKeepBackendHeapStopsPerStatementPageFaults(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	plain, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	prepared, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer prepared.Close(ctx)
	if err := db.KeepBackendHeap(ctx, prepared); err != nil {
		t.Fatal(err)
	}
	// Both of the server's pools prepare their connections this way.
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	pooled := map[string]float64{}
	for name, pool := range map[string]*pgxpool.Pool{"owner": pools.Owner, "api": pools.API} {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pooled[name] = faultsPerStatement(t, ctx, c.Conn())
		c.Release()
	}

	control := faultsPerStatement(t, ctx, plain)
	kept := faultsPerStatement(t, ctx, prepared)
	t.Logf("minor page faults per statement: plain backend %.1f, prepared %.1f, owner pool %.1f, API pool %.1f", control, kept, pooled["owner"], pooled["api"])
	if control < 8 {
		t.Skip(fmt.Sprintf("this PostgreSQL's allocator does not return memory after each statement (%.1f faults)", control))
	}
	for name, n := range map[string]float64{"prepared": kept, "owner pool": pooled["owner"], "API pool": pooled["api"]} {
		if n > control/4 {
			t.Errorf("%s backend still faults %.1f pages per statement (plain: %.1f)", name, n, control)
		}
	}
}

// The API pool opens its idle connections at start, bounded by its size, so the first
// burst of requests does not pay connection setup.
func TestAPIPoolOpensMinConnsAtStart(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	// DB_POOL_MIN (APIMinConns) sets the number, still bounded by the size.
	for _, tc := range []struct{ size, min, want int32 }{{2, 0, 2}, {16, 0, 4}, {16, 1, 1}, {16, 6, 6}, {3, 6, 3}} {
		pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: tc.size, APIMinConns: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		if got := pools.API.Config().MinConns; got != tc.want {
			t.Errorf("pool of %d (min %d): MinConns %d, want %d", tc.size, tc.min, got, tc.want)
		}
		deadline := time.Now().Add(30 * time.Second)
		for pools.API.Stat().IdleConns() < tc.want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polls the pool's own count, not a fixed wait
		}
		if got := pools.API.Stat().IdleConns(); got < tc.want {
			t.Errorf("pool of %d: %d idle connections opened, want %d", tc.size, got, tc.want)
		}
		pools.Close()
	}
}
