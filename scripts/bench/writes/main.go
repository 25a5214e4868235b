// Command writes measures what realtime change capture costs writers: pgbench single-row
// inserts into a table of the supabase_realtime publication against the same inserts into
// an unpublished table of the same shape, alternated in one run, with a casus server
// running and reading the database's slot (the realtime cost now sits in the walsender
// and the server, not on the commit path). Prints the ratio unpublished/published
// (target ≤ 1.1×; the capture trigger it replaced cost 2.1×). -baseline-rev measures
// another revision's casus the same way in the same run (e.g. 00d3095, the last with the
// capture trigger).
//
//	go run ./scripts/bench/writes [-clients 4] [-seconds 10] [-rounds 3] [-baseline-rev REV]
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
	"casus/scripts/internal/proccpu"
)

func main() {
	clients := flag.Int("clients", 4, "pgbench clients")
	seconds := flag.Int("seconds", 10, "seconds per pgbench run")
	rounds := flag.Int("rounds", 3, "runs per table, alternated")
	baselineRev := flag.String("baseline-rev", "", "also measure the casus of this git revision (e.g. one with the capture trigger), in the same run")
	flag.Parse()
	if err := run(*clients, *seconds, *rounds, *baselineRev); err != nil {
		log.Fatal(err)
	}
}

// target is one casus server on its own database with the two tables.
type target struct {
	name  string
	dbURL string
	tps   map[string][]float64
	lag   func() string
	// cpu is the CPU time the casus process and its walsender (when it streams a slot)
	// have used so far: the work of change capture off the commit path.
	cpu func() (casus, walsender time.Duration)
	// cpuPerK is that CPU per 1,000 inserts, per run (casus, walsender).
	cpuPerK map[string][][2]float64
}

// run measures; its deferred calls stop the servers and drop the databases on every path.
func run(clients, seconds, rounds int, baselineRev string) error {
	ctx := context.Background()
	bins := []struct{ name, bin string }{{"this casus", ""}}
	if baselineRev != "" {
		bin, cleanup, err := benchutil.BuildRevision(ctx, baselineRev)
		if err != nil {
			return err
		}
		defer cleanup()
		bins = append(bins, struct{ name, bin string }{"casus " + baselineRev, bin})
	}
	var targets []*target
	for _, b := range bins {
		dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_writes")
		if err != nil {
			return err
		}
		defer drop()
		var srv *benchutil.Server
		if b.bin == "" {
			srv, err = benchutil.StartServer(ctx, dbURL)
		} else {
			srv, err = benchutil.StartServerBinary(ctx, b.bin, dbURL)
		}
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
		pid := srv.Cmd.Process.Pid
		t := &target{name: b.name, dbURL: dbURL, tps: map[string][]float64{}, cpuPerK: map[string][][2]float64{}, cpu: func() (time.Duration, time.Duration) {
			var sender int
			_ = owner.QueryRow(ctx, `select pid from pg_stat_replication
				where application_name = 'casus realtime casus_' || current_database()`).Scan(&sender)
			return proccpu.Of(pid), proccpu.Of(sender)
		}, lag: func() string {
			var lag string
			_ = owner.QueryRow(ctx, `select pg_size_pretty(pg_current_wal_lsn() - confirmed_flush_lsn) from pg_replication_slots
				where slot_name = 'casus_' || current_database()`).Scan(&lag)
			return lag
		}}
		targets = append(targets, t)
		if b.bin != "" {
			continue // an older casus may capture changes otherwise
		}
		// This server streams the slot before the first run.
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			var active bool
			_ = owner.QueryRow(ctx, "select active from pg_replication_slots where slot_name = 'casus_' || current_database()").Scan(&active)
			if active {
				break
			}
			if time.Since(start) > 60*time.Second {
				return fmt.Errorf("the server never streamed the slot (wal_level = logical?)")
			}
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
	fmt.Printf("writes benchmark: pgbench -c %d -T %d single-row inserts, %d rounds alternated, each casus running on its database\n",
		clients, seconds, rounds)
	for r := 0; r < rounds; r++ {
		for _, t := range targets {
			for _, table := range []string{"bench_plain", "bench_pub"} {
				c0, w0 := t.cpu()
				v, err := pgbench(t.dbURL, scripts[table], clients, seconds)
				if err != nil {
					return err
				}
				c1, w1 := t.cpu()
				k := v * float64(seconds) / 1000
				perK := [2]float64{float64((c1 - c0).Milliseconds()) / k, float64((w1 - w0).Milliseconds()) / k}
				t.tps[table] = append(t.tps[table], v)
				t.cpuPerK[table] = append(t.cpuPerK[table], perK)
				fmt.Printf("round %d  %-22s %-12s %8.0f tps   CPU per 1,000 inserts: casus %6.1f ms, walsender %6.1f ms\n", r+1, t.name, table, v, perK[0], perK[1])
			}
		}
	}
	for _, t := range targets {
		plain, pub := median(t.tps["bench_plain"]), median(t.tps["bench_pub"])
		fmt.Printf("\n%s: unpublished (median) %.0f tps, published (median) %.0f tps\n", t.name, plain, pub)
		fmt.Printf("%s: ratio unpublished/published %.2fx   (target ≤ 1.10x)\n", t.name, plain/pub)
		for _, table := range []string{"bench_plain", "bench_pub"} {
			var c, w []float64
			for _, v := range t.cpuPerK[table] {
				c, w = append(c, v[0]), append(w, v[1])
			}
			fmt.Printf("%s: %s CPU per 1,000 inserts (median): casus %.1f ms, walsender %.1f ms\n", t.name, table, median(c), median(w))
		}
		if lag := t.lag(); lag != "" {
			fmt.Printf("%s: slot behind the WAL at the end: %s\n", t.name, lag)
		}
	}
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
