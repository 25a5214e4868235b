// Command writes measures what realtime change capture costs writers: pgbench single-row
// inserts into a table of the supabase_realtime publication against the same inserts into
// an unpublished table of the same shape, alternated in one run, with a casus server
// running and reading the database's slot (the realtime cost now sits in the walsender
// and the server, not on the commit path). Prints the ratio unpublished/published
// (target ≤ 1.1×; the capture trigger it replaced cost 2.1×).
//
//	go run ./scripts/bench/writes [-clients 4] [-seconds 10] [-rounds 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/scripts/bench/internal/benchutil"
)

func main() {
	clients := flag.Int("clients", 4, "pgbench clients")
	seconds := flag.Int("seconds", 10, "seconds per pgbench run")
	rounds := flag.Int("rounds", 3, "runs per table, alternated")
	flag.Parse()
	if err := run(*clients, *seconds, *rounds); err != nil {
		log.Fatal(err)
	}
}

// run measures; its deferred calls stop the server and drop the database on every path.
func run(clients, seconds, rounds int) error {
	ctx := context.Background()
	dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_writes")
	if err != nil {
		return err
	}
	defer drop()
	srv, err := benchutil.StartServer(ctx, dbURL)
	if err != nil {
		return err
	}
	defer srv.Stop()
	owner, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `
		create table public.bench_pub (id bigserial primary key, owner uuid not null, body text not null);
		create table public.bench_plain (id bigserial primary key, owner uuid not null, body text not null);
		alter publication supabase_realtime add table public.bench_pub;
		select realtime.sync_triggers();`); err != nil {
		return err
	}
	// The server streams the slot before the first run.
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		var active bool
		_ = owner.QueryRow(ctx, "select active from pg_replication_slots where slot_name = 'casus_' || current_database()").Scan(&active)
		if active {
			break
		}
		if time.Since(start) > 20*time.Second {
			return fmt.Errorf("the server never streamed the slot (wal_level = logical?)")
		}
	}
	dir, err := os.MkdirTemp("", "casus-bench-writes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	scripts := map[string]string{}
	for _, table := range []string{"bench_plain", "bench_pub"} {
		p := dir + "/" + table + ".sql"
		if err := os.WriteFile(p, []byte("insert into public."+table+" (owner, body) values (gen_random_uuid(), 'note');\n"), 0o644); err != nil {
			return err
		}
		scripts[table] = p
	}
	tps := map[string][]float64{}
	fmt.Printf("writes benchmark: pgbench -c %d -T %d single-row inserts, %d rounds, casus reading the slot (pid %d)\n",
		clients, seconds, rounds, srv.Cmd.Process.Pid)
	for r := 0; r < rounds; r++ {
		for _, table := range []string{"bench_plain", "bench_pub"} {
			v, err := pgbench(dbURL, scripts[table], clients, seconds)
			if err != nil {
				return err
			}
			tps[table] = append(tps[table], v)
			fmt.Printf("round %d  %-12s %8.0f tps\n", r+1, table, v)
		}
	}
	plain, pub := median(tps["bench_plain"]), median(tps["bench_pub"])
	var lag string
	_ = owner.QueryRow(ctx, `select pg_size_pretty(pg_current_wal_lsn() - confirmed_flush_lsn) from pg_replication_slots
		where slot_name = 'casus_' || current_database()`).Scan(&lag)
	fmt.Printf("\nunpublished (median) %8.0f tps\npublished   (median) %8.0f tps\n", plain, pub)
	fmt.Printf("ratio unpublished/published: %.2fx   (target ≤ 1.10x; the capture trigger cost 2.1x)\n", plain/pub)
	fmt.Printf("slot behind the WAL at the end: %s\n", lag)
	return nil
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+)`)

func pgbench(dbURL, script string, clients, seconds int) (float64, error) {
	cmd := exec.Command("pgbench", "-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(clients),
		"-T", strconv.Itoa(seconds), "-f", script, dbURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps:\n%s", out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v, nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
