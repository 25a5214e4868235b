// Command rest benchmarks /rest/v1 on loopback against a casus server process with
// 10,000 cases (each with articles, steps and hints). For each request shape it runs the
// same work directly through pgx — one transaction with the role and claims settings,
// then the equivalent statement — and prints REST as a ratio to that raw baseline.
// BENCH_SERVER_ENV adds environment settings to the server process, for experiments
// (BENCH_SERVER_ENV="GOGC=400 GOMAXPROCS=1").
//
// With -baseline-rev REV (e.g. main) the baseline is instead the casus binary of that git
// revision, built in a temporary worktree and serving the same database: the rounds
// alternate between the two servers and REST is printed as a ratio to the baseline's
// throughput (the guard against regressions: REST/base ≥ 0.95).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/scripts/bench/internal/benchutil"
)

const student = "5e1b7c2a-3d4f-4a6b-8c9d-0e1f2a3b4c5d"

var (
	clientsFlag = flag.String("clients", "32,8", "concurrent clients, one figure per value (the target is stated at 32)")
	duration    = flag.Duration("duration", 2*time.Second, "time per round and side")
	rounds      = flag.Int("rounds", 3, "alternating rounds of raw pgx and REST per figure")
	only        = flag.String("only", "", "run only the request shapes whose name contains this")
	baseRev     = flag.String("baseline-rev", "", "compare with the casus binary of this git revision (built in a temporary worktree) instead of raw pgx")
	pool        = flag.Int("pool", 2*runtime.NumCPU()+1, "connections of the server's data-API pool (DB_POOL; this is its default) and of the raw baseline's pool")
)

func main() {
	flag.Parse()
	// run returns instead of exiting so that its deferred teardown (servers, the baseline's
	// worktree, the database) runs on failure too.
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	var clients []int
	for _, c := range strings.Split(*clientsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			return fmt.Errorf("-clients: %q", c)
		}
		clients = append(clients, n)
	}
	ctx := context.Background()
	dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_rest")
	if err != nil {
		return err
	}
	defer drop()
	srv, err := benchutil.StartServer(ctx, dbURL, append([]string{"RATE_LIMIT_ENABLED=false", fmt.Sprintf("DB_POOL=%d", *pool)}, strings.Fields(os.Getenv("BENCH_SERVER_ENV"))...)...)
	if err != nil {
		return err
	}
	defer srv.Stop()
	var base *benchutil.Server
	if *baseRev != "" {
		bin, cleanup, err := benchutil.BuildRevision(ctx, *baseRev)
		if err != nil {
			return err
		}
		defer cleanup()
		if base, err = benchutil.StartServerBinary(ctx, bin, dbURL, append([]string{"RATE_LIMIT_ENABLED=false", fmt.Sprintf("DB_POOL=%d", *pool)}, strings.Fields(os.Getenv("BENCH_SERVER_ENV"))...)...); err != nil {
			return err
		}
		defer base.Stop()
	}
	owner, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer owner.Close()
	t0 := time.Now()
	if _, err := owner.Exec(ctx, `
		insert into auth.users (id, email, aud, role) values ('`+student+`', 'bench@example.ro', 'authenticated', 'authenticated');
		insert into public.cases (case_code, title, level, week_number, domain, category, subcategory, verified, legal_problem, case_description, question)
		select 'CIV' || (1 + g % 12) || 'B' || g, 'Caz ' || g || ': Răspunderea pentru fapta proprie nr ' || g, (array['Ușor','Mediu','Dificil'])[1 + g % 3],
		       1 + g % 12, 'civil', 'Răspunderea civilă', 'Fapta proprie', true, 'Problemă ' || g, repeat('Text al spetei. ', 40), 'Întrebare?'
		from generate_series(1, 10000) g;
		insert into public.case_articles (case_id, article_number, article_reference) select id, n::text, 'Art. ' || n || ' C.civ.' from public.cases, generate_series(1349, 1351) n;
		insert into public.case_analysis_steps (case_id, step_number, step_description) select id, n, 'Pasul ' || n from public.cases, generate_series(1, 4) n;
		insert into public.case_hints (case_id, hint_number, hint_text) select id, n, 'Indiciul ' || n from public.cases, generate_series(1, 2) n;
		analyze;`); err != nil {
		return err
	}
	var caseID string
	_ = owner.QueryRow(ctx, "select id from public.cases where case_code = 'CIV9B5000'").Scan(&caseID)
	fmt.Printf("rest benchmark: 10,000 cases + 30,000 articles + 40,000 steps + 20,000 hints loaded in %s; clients %v, %d alternating rounds of %s per side, pool %d\n\n", time.Since(t0).Round(time.Millisecond), clients, *rounds, *duration, *pool)

	// The raw baseline connects as the database's login role, like the server's API pool.
	cfg, _ := pgxpool.ParseConfig(dbURL)
	cfg.ConnConfig.User = benchutil.LoginRole(cfg.ConnConfig.Database)
	cfg.ConnConfig.Password = benchutil.AuthenticatorPassword(cfg.ConnConfig.User)
	cfg.MaxConns = int32(*pool)
	cfg.AfterConnect = benchutil.KeepBackendHeap
	api, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer api.Close()

	tok := benchutil.Token("authenticated", student, time.Hour)
	hdr := map[string]string{"apikey": benchutil.Token("anon", "", time.Hour), "Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	claims, _ := json.Marshal(map[string]any{"sub": student, "role": "authenticated"})
	raw := func(sql string, args ...any) func(int) error {
		return func(int) error {
			return pgx.BeginTxFunc(ctx, api, pgx.TxOptions{}, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true),
					set_config('request.jwt.claim.sub', $2, true), set_config('request.method', 'GET', true)`, string(claims), student); err != nil {
					return err
				}
				var body string
				return tx.QueryRow(ctx, sql, args...).Scan(&body)
			})
		}
	}
	var n atomic.Int64 // numbers the inserted submissions; workers call body and args concurrently
	shapes := []struct {
		name, method, path string
		body               func() []byte
		sql                string
		args               func() []any
	}{
		{"20-row list, select=*", "GET", "/rest/v1/cases?select=*&order=week_number,created_at&limit=20", nil,
			`select coalesce(json_agg(_r), '[]')::text from (select _t0.* from public.cases _t0 order by _t0.week_number, _t0.created_at limit 20) _r`, nil},
		{"case + 3 embeds", "GET", "/rest/v1/cases?select=*,case_articles(*),case_analysis_steps(*),case_hints(*)&id=eq." + caseID, nil,
			`select coalesce(json_agg(_r), '[]')::text from (select _t0.*,
			   coalesce((select json_agg(a) from (select * from public.case_articles x where x.case_id = _t0.id) a), '[]') as case_articles,
			   coalesce((select json_agg(s) from (select * from public.case_analysis_steps x where x.case_id = _t0.id) s), '[]') as case_analysis_steps,
			   coalesce((select json_agg(h) from (select * from public.case_hints x where x.case_id = _t0.id) h), '[]') as case_hints
			 from public.cases _t0 where _t0.id = $1) _r`, func() []any { return []any{caseID} }},
		{"insert, return=representation", "POST", "/rest/v1/case_submissions", func() []byte {
			b, _ := json.Marshal(map[string]any{"case_id": caseID, "submission_text": fmt.Sprint("Soluția ", n.Add(1)), "difficulty_rating": 3})
			return b
		}, `with m as (insert into public.case_submissions (case_id, submission_text, difficulty_rating) values ($1, $2, 3) returning *)
			select coalesce(json_agg(m), '[]')::text from m`, func() []any { return []any{caseID, fmt.Sprint("Soluția ", n.Add(1))} }},
		{"rpc search_cases", "POST", "/rest/v1/rpc/search_cases", func() []byte { return []byte(`{"search_query":"raspunderea","max_results":10}`) },
			`select coalesce(json_agg(_r), '[]')::text from (select * from public.search_cases('raspunderea', 10)) _r`, nil},
	}
	baseName, ratioName := "raw pgx/s", "REST/raw"
	if base != nil {
		baseName, ratioName = *baseRev+" req/s", "REST/base"
		fmt.Printf("baseline: casus at %s, same database, alternating rounds\n\n", *baseRev)
	}
	fmt.Printf("%-32s %7s %12s %9s %9s   %12s %9s %9s   %s\n", "request", "clients", "REST req/s", "p50", "p99", baseName, "p50", "p99", ratioName)
	for _, sh := range shapes {
		if *only != "" && !strings.Contains(sh.name, *only) {
			continue
		}
		args := func() []any { return nil }
		if sh.args != nil {
			args = sh.args
		}
		extra := map[string]string{}
		for k, v := range hdr {
			extra[k] = v
		}
		if sh.method == "POST" && sh.path == "/rest/v1/case_submissions" {
			extra["Prefer"] = "return=representation"
		}
		for _, conc := range clients {
			// One keep-alive connection per worker, wrk-style (see benchutil.RawConn), dialled
			// for each round: a new connection must send its first request within the
			// server's ReadHeaderTimeout (10 s), and a raw round may last longer.
			conns := make([]*benchutil.RawConn, conc)
			baseConns := make([]*benchutil.RawConn, conc)
			rest := func(conns []*benchutil.RawConn) func(int) error {
				return func(w int) error {
					var body []byte
					if sh.body != nil {
						body = sh.body()
					}
					status, answer, err := conns[w].DoBody(body)
					if err == nil && status >= 300 {
						err = &benchutil.StatusError{Status: status, Body: string(answer)}
					}
					return err
				}
			}
			restSide := rest(conns)
			rawSide := func(w int) error { return raw(sh.sql, args()...)(w) }
			if base != nil {
				rawSide = rest(baseConns)
			}
			// Alternating rounds, so a slower stretch of the machine weighs on both sides.
			meter := cpuMeter{owner: owner, serverPID: srv.Cmd.Process.Pid}
			baseMeter := meter
			if base != nil {
				baseMeter.serverPID = base.Cmd.Process.Pid
			}
			var rawRate, restRate float64
			var rawLat, restLat []time.Duration
			var rawErr, restErr int64
			var rawDB, restServer, restDB, baseServer time.Duration
			for i := 0; i < *rounds; i++ {
				if base != nil {
					for w := range baseConns {
						if baseConns[w], err = benchutil.DialRaw(base.URL, sh.method, sh.path, extra); err != nil {
							return err
						}
					}
				}
				c0 := baseMeter.sample(ctx)
				r, l, e := benchutil.Run(conc, *duration, rawSide)
				bs, db := baseMeter.sample(ctx).since(c0)
				if base != nil {
					for _, rc := range baseConns {
						rc.Close()
					}
				}
				rawRate, rawLat, rawErr, rawDB, baseServer = rawRate+r/float64(*rounds), append(rawLat, l...), rawErr+e, rawDB+db, baseServer+bs
				for w := range conns {
					if conns[w], err = benchutil.DialRaw(srv.URL, sh.method, sh.path, extra); err != nil {
						return err
					}
				}
				c2 := meter.sample(ctx)
				r, l, e = benchutil.Run(conc, *duration, restSide)
				sv, db := meter.sample(ctx).since(c2)
				for _, rc := range conns {
					rc.Close()
				}
				restRate, restLat, restErr, restServer, restDB = restRate+r/float64(*rounds), append(restLat, l...), restErr+e, restServer+sv, restDB+db
			}
			perReq := func(d time.Duration, rate float64) float64 {
				return float64(d.Microseconds()) / (rate * duration.Seconds() * float64(*rounds))
			}
			cpu := fmt.Sprintf("   cpu µs/req: REST server %.0f + db %.0f, raw db %.0f", perReq(restServer, restRate), perReq(restDB, restRate), perReq(rawDB, rawRate))
			if base != nil {
				cpu = fmt.Sprintf("   cpu µs/req: REST server %.0f + db %.0f, base server %.0f + db %.0f", perReq(restServer, restRate), perReq(restDB, restRate), perReq(baseServer, rawRate), perReq(rawDB, rawRate))
			}
			fmt.Printf("%-32s %7d %12.0f %9s %9s   %12.0f %9s %9s   %.2f", sh.name, conc, restRate, benchutil.MS(benchutil.Percentile(restLat, 50)), benchutil.MS(benchutil.Percentile(restLat, 99)),
				rawRate, benchutil.MS(benchutil.Percentile(rawLat, 50)), benchutil.MS(benchutil.Percentile(rawLat, 99)), restRate/rawRate)
			fmt.Print(cpu)
			if restErr+rawErr > 0 {
				fmt.Printf("   (errors: rest %d, raw %d)", restErr, rawErr)
			}
			fmt.Println()
		}
	}
	if base != nil {
		fmt.Println("\nguard: REST/base ≥ 0.95 (no regression over 5 % against " + *baseRev + ")")
		return nil
	}
	fmt.Println("\ntargets: REST/raw ≥ 0.6 for reads; REST p99 < 20 ms at 32 clients")
	return nil
}
