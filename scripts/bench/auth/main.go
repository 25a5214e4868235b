// Command auth benchmarks /auth/v1 on loopback against a casus server process, each
// figure as a ratio to a baseline measured in the same run:
//   - password sign-in throughput vs bcrypt comparisons per second at cost 10 on every
//     core (the ceiling: every sign-in is one bcrypt comparison), and GET /auth/v1/user's
//     latency during a burst of sign-ins vs alone;
//   - refresh-token rotation throughput;
//   - GET /auth/v1/user throughput vs a raw pgx lookup of the same user and session at
//     the same concurrency (32 workers on both sides, the server's pool size for the raw
//     pool, the apikey the server publishes, a lean keep-alive HTTP client).
//
// -only signin|refresh|user runs one figure.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"casus/scripts/bench/internal/benchutil"
)

const (
	users    = 64
	duration = 5 * time.Second
	// Each ratio alternates baseline and measured rounds so load drift on a shared machine
	// hits both; sign-in rounds are longer since one sign-in takes a sizeable part of a second.
	rounds       = 5
	signInRounds = 3
)

// poolSize is the server's owner pool size (DB_OWNER_POOL, which auth uses) and the raw baseline's; userConc the
// workers of each side of the GET /user figure.
var poolSize, userConc *int

// paired runs base and measured in alternating rounds of d at the same concurrency and
// returns both mean rates, their latencies and the measured side's errors.
func paired(conc, rounds int, d time.Duration, base, measured func(int) error) (baseRate, rate float64, baseLat, lat []time.Duration, errs int64) {
	var baseOps, ops float64
	for i := 0; i < rounds; i++ {
		r, l, _ := benchutil.Run(conc, d, base)
		baseOps += r
		baseLat = append(baseLat, l...)
		r, l, e := benchutil.Run(conc, d, measured)
		ops += r
		lat = append(lat, l...)
		errs += e
	}
	return baseOps / float64(rounds), ops / float64(rounds), baseLat, lat, errs
}

func main() {
	only := flag.String("only", "", "run one figure: signin, refresh or user")
	userConc = flag.Int("conc", 32, "workers on each side of the GET /user figure")
	poolSize = flag.Int("pool", 16, "connections in the server's owner pool (DB_OWNER_POOL) and in the raw baseline's (16 is the server's default)")
	flag.Parse()
	run := func(name string) bool { return *only == "" || *only == name }
	ctx := context.Background()
	dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_auth")
	if err != nil {
		log.Fatal(err)
	}
	defer drop()
	srv, err := benchutil.StartServer(ctx, dbURL, "MAILER_AUTOCONFIRM=true", "RATE_LIMIT_ENABLED=false", fmt.Sprintf("DB_OWNER_POOL=%d", *poolSize))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()
	c := benchutil.Client(64)
	// The anon key the server publishes, which is what supabase-js sends as apikey.
	cfgBody, err := benchutil.Do(c, "GET", srv.URL+"/config.json", nil, nil)
	if err != nil {
		log.Fatal("config.json: ", err)
	}
	var pub struct {
		SupabaseAnonKey string `json:"supabaseAnonKey"`
	}
	if err := json.Unmarshal(cfgBody, &pub); err != nil || pub.SupabaseAnonKey == "" {
		log.Fatal("config.json: no anon key: ", string(cfgBody))
	}
	anon := pub.SupabaseAnonKey
	hdr := map[string]string{"apikey": anon, "Content-Type": "application/json"}

	sessions := make([]session, users)
	for i := range sessions {
		body, _ := json.Marshal(map[string]string{"email": fmt.Sprintf("bench%d@example.ro", i), "password": "parola-bench"})
		b, err := benchutil.Do(c, "POST", srv.URL+"/auth/v1/signup", body, hdr)
		if err != nil {
			log.Fatal("signup: ", err)
		}
		var r struct {
			AccessToken  string              `json:"access_token"`
			RefreshToken string              `json:"refresh_token"`
			User         struct{ ID string } `json:"user"`
		}
		_ = json.Unmarshal(b, &r)
		sessions[i] = session{r.AccessToken, r.RefreshToken, r.User.ID}
	}
	fmt.Printf("auth benchmark: %d users, %s per figure (ratios: alternating rounds), loopback, server pid %d\n\n", users, duration, srv.Cmd.Process.Pid)

	const conc = 32
	if run("signin") {
		signIn(ctx, c, srv, dbURL, hdr, sessions)
	}
	if run("refresh") {
		refreshes(c, srv.URL, hdr, sessions[:conc])
	}
	if run("user") {
		getUser(ctx, dbURL, srv.URL, anon, sessions)
	}
}

type session struct{ access, refresh, id string }

// signIn compares password sign-ins with bcrypt comparisons at cost 10, as many workers
// as sign-ins: the baseline is the machine's bcrypt limit (every core comparing, in this
// process). Then it checks that a burst of sign-ins leaves other requests their latency:
// GET /auth/v1/user answered alone, and again while the sign-in workers keep every
// hashing slot busy.
func signIn(ctx context.Context, c *http.Client, srv *benchutil.Server, dbURL string, hdr map[string]string, sessions []session) {
	base := srv.URL
	dbCfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		log.Fatal(err)
	}
	hash, _ := bcrypt.GenerateFromPassword([]byte("parola-bench"), 10)
	const signConc = 8
	login := func(w int) error {
		body, _ := json.Marshal(map[string]string{"email": fmt.Sprintf("bench%d@example.ro", w), "password": "parola-bench"})
		_, err := benchutil.Do(c, "POST", base+"/auth/v1/token?grant_type=password", body, hdr)
		return err
	}
	compare := func(int) error { return bcrypt.CompareHashAndPassword(hash, []byte("parola-bench")) }
	var bcryptRate, signRate float64
	var signLat []time.Duration
	var signErr int64
	var spent cpuSplit // CPU time during the sign-in rounds
	// Warm-up, not measured: the server's connections to PostgreSQL open on demand, and
	// the first burst of sign-ins opens a connection per concurrent sign-in (each new
	// backend's start and heap hint cost tens of milliseconds of PostgreSQL's CPU: a
	// start-up cost, not a sign-in's).
	benchutil.Run(signConc, time.Second, login)
	// Both rates are steady-state ones (RunSteady): a closed loop's drain leaves a core
	// idle while the last comparison finishes, which a stream of arriving students
	// does not, and it would weigh on the sign-ins (queued behind one another) more than
	// on the baseline. The baseline compares on one worker per core.
	baseConc := runtime.NumCPU()
	const warm, window = 500 * time.Millisecond, 2 * time.Second
	for range signInRounds {
		r, _, _ := benchutil.RunSteady(baseConc, warm, window, compare, nil)
		bcryptRate += r / signInRounds
		var edges []cpuSample
		r, l, e := benchutil.RunSteady(signConc, warm, window, login, func() {
			edges = append(edges, sampleCPU(ctx, srv.Cmd.Process.Pid, dbCfg.Database))
		})
		spent = spent.add(edges[0], edges[1])
		signRate += r / signInRounds
		signLat, signErr = append(signLat, l...), signErr+e
	}
	fmt.Printf("bcrypt cost 10 (baseline):  %7.1f comparisons/s  (%d workers, one per core)\n", bcryptRate, baseConc)
	fmt.Printf("password sign-in:           %7.1f sign-ins/s     p50 %s p99 %s, errors %d\n", signRate, benchutil.MS(benchutil.Percentile(signLat, 50)), benchutil.MS(benchutil.Percentile(signLat, 99)), signErr)
	fmt.Printf("ratio sign-in / bcrypt:     %7.2f   (target ≥ 0.95)\n", signRate/bcryptRate)
	if n := float64(len(signLat)); n > 0 {
		per := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000/n) }
		fmt.Printf("CPU per sign-in:            server %s (one comparison: %.1f ms), PostgreSQL %s, this client %s, idle %s (of both cores)\n",
			per(spent.server), 1000*float64(runtime.NumCPU())/max(bcryptRate, 1), per(spent.db), per(spent.self), per(spent.idle))
	}

	// The probe: two workers reading their user, as students' pages do between sign-ins.
	const probeConc = 2
	probe := func(w int) error {
		h := map[string]string{"apikey": hdr["apikey"], "Authorization": "Bearer " + sessions[len(sessions)-1-w].access}
		_, err := benchutil.Do(c, "GET", base+"/auth/v1/user", nil, h)
		return err
	}
	var idleLat, busyLat []time.Duration
	for range signInRounds {
		_, l, _ := benchutil.Run(probeConc, 2*time.Second, probe)
		idleLat = append(idleLat, l...)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range signConc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						_ = login(w)
					}
				}
			}()
		}
		time.Sleep(300 * time.Millisecond) // let the sign-ins fill the hashing slots
		_, l, _ = benchutil.Run(probeConc, 2*time.Second, probe)
		busyLat = append(busyLat, l...)
		close(stop)
		wg.Wait()
	}
	idle99, busy99 := benchutil.Percentile(idleLat, 99), benchutil.Percentile(busyLat, 99)
	fmt.Printf("GET /user alone:            p50 %s p99 %s  (%d workers)\n", benchutil.MS(benchutil.Percentile(idleLat, 50)), benchutil.MS(idle99), probeConc)
	fmt.Printf("GET /user during sign-ins:  p50 %s p99 %s  (%d sign-in workers)\n", benchutil.MS(benchutil.Percentile(busyLat, 50)), benchutil.MS(busy99), signConc)
	fmt.Printf("p99 during / alone:         %7.2f\n\n", float64(busy99)/float64(max(idle99, time.Microsecond)))
}

// refreshes measures refresh-token rotation: each worker rotates its own chain.
func refreshes(c *http.Client, base string, hdr map[string]string, sessions []session) {
	conc := len(sessions)
	refresh := make([]string, conc)
	for i := range refresh {
		refresh[i] = sessions[i].refresh
	}
	refRate, refLat, refErr := benchutil.Run(conc, duration, func(w int) error {
		body, _ := json.Marshal(map[string]string{"refresh_token": refresh[w]})
		b, err := benchutil.Do(c, "POST", base+"/auth/v1/token?grant_type=refresh_token", body, hdr)
		if err != nil {
			return err
		}
		var r struct {
			RefreshToken string `json:"refresh_token"`
		}
		_ = json.Unmarshal(b, &r)
		refresh[w] = r.RefreshToken
		return nil
	})
	fmt.Printf("refresh-token rotation:     %7.1f refreshes/s    p50 %s p99 %s, errors %d (%d workers)\n\n", refRate, benchutil.MS(benchutil.Percentile(refLat, 50)), benchutil.MS(benchutil.Percentile(refLat, 99)), refErr, conc)
}

// getUser compares GET /auth/v1/user with the same lookup straight through pgx.
func getUser(ctx context.Context, dbURL, base, anon string, sessions []session) {
	conc := *userConc

	// GET /user vs the same lookup straight through pgx. Fresh sign-ins: the refresh run
	// rotated the first sessions' tokens, access tokens stay valid.
	// Same pool size as the server's (-pool, DB_OWNER_POOL) and the same 32 workers on both
	// sides; pgxpool's own default would be max(4, CPUs) connections.
	poolCfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		log.Fatal(err)
	}
	poolCfg.MaxConns = int32(*poolSize)
	poolCfg.AfterConnect = benchutil.KeepBackendHeap
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	// One keep-alive connection per worker with a lean HTTP/1.1 client (see RawConn); every
	// answer must be a 200 carrying the worker's user id.
	conns := make([]*benchutil.RawConn, conc)
	for w := range conns {
		hdr := map[string]string{"apikey": anon, "Authorization": "Bearer " + sessions[w%users].access}
		if conns[w], err = benchutil.DialRaw(base, "GET", "/auth/v1/user", hdr); err != nil {
			log.Fatal(err)
		}
		defer conns[w].Close()
	}
	// The baseline reads the user row through the token's session, as GET /user must (the
	// session still exists, the user is not deleted), without the HTTP, JWT and JSON work.
	sids := make([]string, len(sessions))
	for i, s := range sessions {
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(s.access, claims); err != nil {
			log.Fatal(err)
		}
		sids[i], _ = claims["session_id"].(string)
	}
	const lookup = `select u.id, u.email, u.raw_user_meta_data, u.raw_app_meta_data from auth.users u join auth.sessions s on s.user_id = u.id
where s.id = $1 and s.user_id = $2 and u.deleted_at is null`
	var rawErr atomic.Int64
	rawRate, userRate, rawLat, userLat, userErr := paired(conc, rounds, duration/rounds,
		func(w int) error {
			var id, email string
			var a, b []byte
			err := pool.QueryRow(ctx, lookup, sids[w%users], sessions[w%users].id).Scan(&id, &email, &a, &b)
			if err != nil {
				rawErr.Add(1)
			}
			return err
		},
		func(w int) error {
			status, body, err := conns[w].Do()
			if err != nil {
				return err
			}
			if status != 200 || !bytes.Contains(body, []byte(sessions[w%users].id)) {
				return fmt.Errorf("GET /user: %d %s", status, body)
			}
			return nil
		})
	fmt.Printf("raw pgx user lookup (base): %7.1f lookups/s     p50 %s p99 %s, errors %d (%d workers)\n", rawRate, benchutil.MS(benchutil.Percentile(rawLat, 50)), benchutil.MS(benchutil.Percentile(rawLat, 99)), rawErr.Load(), conc)
	fmt.Printf("GET /auth/v1/user:          %7.1f requests/s    p50 %s p99 %s, errors %d\n", userRate, benchutil.MS(benchutil.Percentile(userLat, 50)), benchutil.MS(benchutil.Percentile(userLat, 99)), userErr)
	fmt.Printf("ratio /user / raw lookup:   %7.2f   (target ≥ 0.4)\n", userRate/rawRate)

	// Context for that ratio: the same client against an endpoint that does no database, JWT
	// or JSON work at all. On a small machine whose cores the load generator, the server and
	// PostgreSQL share, this HTTP floor bounds what any HTTP endpoint can reach here.
	health := make([]*benchutil.RawConn, conc)
	for w := range health {
		if health[w], err = benchutil.DialRaw(base, "GET", "/auth/v1/health", map[string]string{"apikey": anon}); err != nil {
			log.Fatal(err)
		}
		defer health[w].Close()
	}
	floorRate, userRate2, floorLat, _, userErr2 := paired(conc, rounds, duration/rounds,
		func(w int) error {
			status, _, err := health[w].Do()
			if err == nil && status != 200 {
				err = fmt.Errorf("GET /health: %d", status)
			}
			return err
		},
		func(w int) error {
			status, _, err := conns[w].Do()
			if err == nil && status != 200 {
				err = fmt.Errorf("GET /user: %d", status)
			}
			return err
		})
	fmt.Printf("HTTP floor: GET /health:    %7.1f requests/s    p50 %s (same client, no database; GET /user errors %d)\n", floorRate, benchutil.MS(benchutil.Percentile(floorLat, 50)), userErr2)
	fmt.Printf("ratio /user / HTTP floor:   %7.2f   (raw lookup / HTTP floor: %.2f)\n", userRate2/floorRate, rawRate/floorRate)
}
