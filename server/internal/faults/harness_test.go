package faults_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/scripts/load/sim"
	"casus/server/internal/app"
	"casus/server/internal/authn"
	"casus/server/internal/config"
	"casus/server/internal/db"
)

const secret = "faults-secret-that-is-at-least-32-bytes-long!!"

// The test binary doubles as the server: started with CASUS_FAULTS_SERVE=1 it runs
// `casus serve` from the environment, so the tests kill and restart a real server
// process built from this very tree.
func TestMain(m *testing.M) {
	if os.Getenv("CASUS_FAULTS_SERVE") == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

func serve() int {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := app.Run(ctx, cfg, log, app.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// server is a casus server process on a fixed loopback address (kept across restarts).
type server struct {
	t      *testing.T
	URL    string
	env    []string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
	mu     sync.Mutex
}

// startServer runs the server against databaseURL with the fake AI at aiURL.
func startServer(t *testing.T, databaseURL, aiURL string) *server {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	dir := t.TempDir()
	s := &server{t: t, URL: "http://" + addr, log: &bytes.Buffer{}, env: []string{
		"CASUS_FAULTS_SERVE=1", "DATABASE_URL=" + databaseURL, "CASUS_ADDR=" + addr, "SITE_URL=http://" + addr,
		"JWT_SECRET=" + secret, "CASUS_STATE_DIR=" + dir, "FRONTEND_DIR=" + dir, "CASUS_ENV=development", "MAILER_AUTOCONFIRM=true",
		"RATE_LIMIT_SIGNIN=100000", "RATE_LIMIT_SIGNUP=100000", "RATE_LIMIT_VERIFY=100000", "RATE_LIMIT_EMAIL_SENT=100000",
		"AI_PROVIDER=anthropic", "ANTHROPIC_API_KEY=fake-key", "ANTHROPIC_BASE_URL=" + aiURL, "AI_MODEL=claude-test",
		"DB_POOL=5", "DB_OWNER_POOL=8",
	}}
	s.start()
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			s.mu.Lock()
			t.Logf("server log:\n%s", tail(s.log.String(), 4000))
			s.mu.Unlock()
		}
	})
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

type lockedWriter struct{ s *server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.log.Write(p)
}

// start launches the process and waits until it answers.
func (s *server) start() {
	s.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), s.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the test
	cmd.Stdout, cmd.Stderr = lockedWriter{s}, lockedWriter{s}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.exited)
	deadline := time.Now().Add(90 * time.Second)
	for !s.healthy() {
		select {
		case <-s.exited:
			s.t.Fatalf("the server exited while starting:\n%s", tail(s.log.String(), 4000))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatal("the server did not come up")
		}
	}
}

func (s *server) healthy() bool {
	req, _ := http.NewRequest("GET", s.URL+"/auth/v1/health", nil)
	req.Header.Set("apikey", anonKey())
	c := http.Client{Timeout: 2 * time.Second}
	res, err := c.Do(req)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == 200
}

func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// kill ends the process with SIGKILL (no shutdown of any kind) and waits for it.
func (s *server) kill() {
	if s.cmd != nil && s.alive() {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
	}
}

func anonKey() string {
	k, _ := authn.NewKeys([]byte(secret))
	return k.AnonKey
}

// userToken signs an access token for a user, as the server would.
func userToken(t *testing.T, uid string) string {
	k, err := authn.NewKeys([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	c := &authn.Claims{Role: authn.RoleAuthenticated}
	c.Subject = uid
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, err := k.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// cluster is a PostgreSQL cluster the test owns (initdb into a temporary directory),
// on a free loopback port, that it can stop and start.
type cluster struct {
	t                  *testing.T
	bin, data, sockDir string
	port               int
	cred               *syscall.Credential
}

func startCluster(t *testing.T) *cluster {
	bin, err := db.FindPostgresBin()
	if err != nil {
		t.Skip("this test needs the PostgreSQL server binaries (initdb, pg_ctl):", err)
	}
	dir := t.TempDir()
	c := &cluster{t: t, bin: bin, data: filepath.Join(dir, "data"), sockDir: filepath.Join(dir, "sock"), port: freePort(t)}
	for _, d := range []string{dir, filepath.Dir(dir)} { // the postgres user must reach it
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(c.sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres system user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		for _, d := range []string{dir, c.sockDir} {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.run("initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	c.start()
	t.Cleanup(func() { _ = c.pgctl("-m", "immediate", "-w", "stop") })
	return c
}

func (c *cluster) URL(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, database)
}

func (c *cluster) start() {
	// wal_level=logical: realtime reads changes by logical replication (pushes must resume).
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories=%s -c max_connections=60 -c wal_level=logical", c.port, c.sockDir)
	if err := c.pgctl("-o", opts, "-l", filepath.Join(filepath.Dir(c.data), "postgres.log"), "-w", "-t", "60", "start"); err != nil {
		c.t.Fatal(err)
	}
}

// stop shuts the cluster down in fast mode: every session is disconnected and open
// transactions roll back, as in a restart for maintenance or a failover.
func (c *cluster) stop() {
	if err := c.pgctl("-m", "fast", "-w", "-t", "60", "stop"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) pgctl(args ...string) error {
	return c.exec("pg_ctl", append([]string{"-D", c.data}, args...)...)
}

func (c *cluster) run(name string, args ...string) {
	if err := c.exec(name, args...); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) exec(name string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// prepare adds to the database the server created and migrated a small curriculum
// (verified cases with their articles, steps and hints) and a log of grading
// transitions, and returns an owner pool.
func prepare(t *testing.T, databaseURL string) *pgxpool.Pool {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `
		insert into cases (case_code, title, domain, legal_problem, case_description, question, verified, week_number)
		select 'FLT' || n, 'Caz ' || n || ': răspunderea civilă delictuală pentru fapta proprie', 'civil',
		       'Răspunderea pentru fapta proprie', 'Ion a spart geamul lui Vasile.', 'Răspunde Ion?', true, n
		from generate_series(1, 6) n;
		insert into case_articles (case_id, article_number, article_reference) select id, '1357', 'Art. 1357 C.civ.' from cases;
		insert into case_analysis_steps (case_id, step_number, step_description) select id, 1, 'Identifică fapta ilicită' from cases;
		insert into case_hints (case_id, hint_number, hint_text) select id, 1, 'Art. 1357 C.civ.' from cases;
		-- Every change of a submission's grade or AI check, to count how often each was recorded.
		create table public.fault_log (submission_id uuid, what text, at timestamptz default clock_timestamp());
		create function public.fault_log_changes() returns trigger language plpgsql as $$
		begin
		  if new.status = 'graded' and (old.status is distinct from 'graded' or new.feedback_at is distinct from old.feedback_at
		      or new.score is distinct from old.score) then
		    insert into public.fault_log (submission_id, what) values (new.id, 'grade');
		  end if;
		  if new.ai_checked_at is not null and new.ai_checked_at is distinct from old.ai_checked_at then
		    insert into public.fault_log (submission_id, what) values (new.id, 'check');
		  end if;
		  return null;
		end $$;
		create trigger fault_log after update on public.case_submissions for each row execute function public.fault_log_changes();`)
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

// texts collects the submissions the server accepted, as the students saw them.
type texts struct {
	mu sync.Mutex
	m  map[string]string
}

func (x *texts) add(id, text string) {
	x.mu.Lock()
	if x.m == nil {
		x.m = map[string]string{}
	}
	x.m[id] = text
	x.mu.Unlock()
}

// integrity is what the database holds after a fault.
type integrity struct {
	accepted, kept, checked, graded int
}

// checkIntegrity asserts that every submission the server accepted is stored with its
// text, that no row is half-saved (a grade without its score, breakdown, date or check; a
// check without its decision; a completion missing; a user without its identity), and
// that no grade or check was recorded twice.
func checkIntegrity(t *testing.T, pool *pgxpool.Pool, accepted *texts) integrity {
	t.Helper()
	ctx := context.Background()
	var in integrity
	accepted.mu.Lock()
	defer accepted.mu.Unlock()
	in.accepted = len(accepted.m)
	for id, want := range accepted.m {
		var got string
		if err := pool.QueryRow(ctx, "select submission_text from case_submissions where id = $1", id).Scan(&got); err != nil {
			t.Errorf("accepted submission %s is lost: %v", id, err)
			continue
		}
		if got != want {
			t.Errorf("submission %s text changed: %q, sent %q", id, got, want)
			continue
		}
		in.kept++
	}
	var half []string
	rows, err := pool.Query(ctx, `
		select id::text || ': ' || case
		  when status = 'graded' and (score is null or score_value is null or feedback_at is null or score_breakdown is null
		       or score <> score_value::int || '/100' or feedback_text not like '%PUNCTAJ TOTAL: ' || score || '%')
		    then 'grade half-saved'
		  when status = 'graded' and ai_checked_at is null
		    then 'graded without a check'
		  when ai_checked_at is not null and (ai_decision is null or ai_probability is null)
		    then 'check half-saved'
		  when status = 'graded' and score_value > 50 and not exists (
		       select 1 from case_completions c where c.user_id = s.user_id and c.case_id = s.case_id)
		    then 'completion missing'
		  end
		from case_submissions s
		union all
		select 'user ' || u.id::text || ': no identity' from auth.users u
		where not exists (select 1 from auth.identities i where i.user_id = u.id)
		union all
		select submission_id::text || ': ' || what || ' recorded ' || count(*) || ' times'
		from fault_log group by submission_id, what having count(*) > 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s *string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s != nil {
			half = append(half, *s)
		}
	}
	rows.Close()
	for _, h := range half {
		t.Errorf("integrity: %s", h)
	}
	if err := pool.QueryRow(ctx, `select count(*) filter (where ai_checked_at is not null), count(*) filter (where status = 'graded')
		from case_submissions`).Scan(&in.checked, &in.graded); err != nil {
		t.Fatal(err)
	}
	return in
}

// window summarises the requests around a fault: how many were sent, how many failed
// between the fault's start and the last failure, and when the last failure ended.
type window struct {
	total, failed, failedIn int
	lastFailure             time.Time
	afterFault              int // requests sent after the fault ended
	failedAfter             int // of which failed after recovery
}

func faultWindow(res *sim.Result, from, to time.Time, recovered time.Duration) window {
	var w window
	for _, e := range res.Events {
		w.total++
		end := e.At.Add(e.Dur)
		if e.Err != "" {
			w.failed++
			if !end.Before(from) && e.At.Before(to.Add(recovered)) {
				w.failedIn++
			}
			if end.After(w.lastFailure) {
				w.lastFailure = end
			}
		}
		if e.At.After(to.Add(recovered)) {
			w.afterFault++
			if e.Err != "" {
				w.failedAfter++
			}
		}
	}
	return w
}

func simConfig(srv *server, students int, d time.Duration, accepted *texts) sim.Config {
	return sim.Config{URL: srv.URL, AnonKey: anonKey(), Students: students, Duration: d, Ramp: time.Second,
		Think: 150 * time.Millisecond, Realtime: true, OnSubmission: accepted.add}
}

// waitFor polls cond every 20 ms until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if !poll(timeout, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func errorSamples(res *sim.Result, n int) []string {
	var out []string
	for _, e := range res.Events {
		if e.Err != "" && len(out) < n {
			out = append(out, e.Kind+": "+tail(e.Err, 200))
		}
	}
	return out
}
