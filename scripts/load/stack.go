package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/scripts/internal/dbdrop"
)

// stack is a private Casus stack: a throwaway database, the fake AI provider and the
// server (or several instances behind HAProxy), all on loopback.
type stack struct {
	url, anonKey, serviceKey string
	pid                      int   // the first instance's
	pids                     []int // every instance's
	proxyPID                 int   // HAProxy's, with several instances
	fakePID                  int   // the fake AI provider's
	dbName                   string
	dir                      string
	procs                    []*exec.Cmd
	dropDB                   func()
}

func adminURL() string {
	if u := os.Getenv("CASUS_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func startStack(ctx context.Context, aiDelay, aiStream time.Duration, instances int) (st *stack, err error) {
	st = &stack{dropDB: func() {}}
	defer func() {
		if err != nil {
			st.stop()
		}
	}()
	if st.dir, err = os.MkdirTemp("", "casus-load-"); err != nil {
		return nil, err
	}
	bin := filepath.Join(st.dir, "casus")
	fmt.Println("load: building the server …")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./server/cmd/casus").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build (run from the repository root): %v\n%s", err, out)
	}

	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "casus_load_" + hex.EncodeToString(b)
	st.dbName = name
	admin, err := pgx.Connect(ctx, adminURL())
	if err != nil {
		return nil, fmt.Errorf("local PostgreSQL (scripts/ensure-postgres.sh starts it): %w", err)
	}
	_, err = admin.Exec(ctx, "create database "+name)
	admin.Close(ctx)
	if err != nil {
		return nil, err
	}
	st.dropDB = func() {
		c, err := pgx.Connect(context.Background(), adminURL())
		if err == nil {
			_ = dbdrop.Drop(context.Background(), c, name)
			c.Close(context.Background())
		}
	}
	dbURL := adminURL()
	q := ""
	if i := strings.IndexByte(dbURL, '?'); i >= 0 {
		dbURL, q = dbURL[:i], dbURL[i:]
	}
	dbURL = dbURL[:strings.LastIndexByte(dbURL, '/')+1] + name + q

	aiAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	fake, err := st.spawn(ctx, "fake-ai", bin, nil, "fake-ai", "--addr", aiAddr, "--delay", aiDelay.String(), "--stream-delay", aiStream.String(), "--record", "0")
	if err != nil {
		return nil, err
	}
	st.fakePID = fake.Process.Pid

	secret := "load-" + hex.EncodeToString(b) + "-0123456789abcdef0123456789abcdef"
	keys := exec.CommandContext(ctx, bin, "keys")
	keys.Env = append(os.Environ(), "JWT_SECRET="+secret, "CASUS_STATE_DIR="+st.dir)
	out, err := keys.Output()
	if err != nil {
		return nil, fmt.Errorf("casus keys: %w", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			switch k {
			case "ANON_KEY":
				st.anonKey = v
			case "SERVICE_ROLE_KEY":
				st.serviceKey = v
			}
		}
	}

	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	st.url = "http://" + addr
	env := []string{"DATABASE_URL=" + dbURL, "SITE_URL=" + st.url, "JWT_SECRET=" + secret,
		"CASUS_STATE_DIR=" + st.dir, "FRONTEND_DIR=" + st.dir, "MAILER_AUTOCONFIRM=true", "CASUS_ENV=development",
		// Limits stay on, high enough for every student signing in from one address.
		"RATE_LIMIT_SIGNIN=100000", "RATE_LIMIT_SIGNUP=100000", "RATE_LIMIT_VERIFY=100000", "RATE_LIMIT_EMAIL_SENT=100000",
		"AI_PROVIDER=anthropic", "ANTHROPIC_API_KEY=fake-key", "ANTHROPIC_BASE_URL=http://" + aiAddr, "AI_MODEL=claude-test"}
	if instances == 1 {
		fmt.Println("load: starting the server (migrate and seed) …")
		srv, err := st.startInstance(ctx, "server", bin, addr, env, "--seed")
		if err != nil {
			return nil, err
		}
		st.pid, st.pids = srv, []int{srv}
		return st, nil
	}
	// A cluster: the first instance migrates and seeds, the others start on the migrated
	// database, all behind HAProxy (scripts/haproxy-config.sh) on st.url.
	env = append(env, "TRUSTED_PROXIES=127.0.0.1/32")
	ports := []string{}
	for i := range instances {
		a, err := freeAddr()
		if err != nil {
			return nil, err
		}
		_, port, _ := net.SplitHostPort(a)
		ports = append(ports, port)
		seed := []string{}
		if i == 0 {
			fmt.Printf("load: starting %d instances behind HAProxy (the first migrates and seeds) …\n", instances)
			seed = []string{"--seed"}
		}
		pid, err := st.startInstance(ctx, fmt.Sprintf("server%d", i+1), bin, a, env, seed...)
		if err != nil {
			return nil, err
		}
		st.pids = append(st.pids, pid)
	}
	st.pid = st.pids[0]
	_, front, _ := net.SplitHostPort(addr)
	cfg, err := exec.CommandContext(ctx, "./scripts/haproxy-config.sh", append([]string{front, st.anonKey}, ports...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("scripts/haproxy-config.sh: %w", err)
	}
	cfgPath := filepath.Join(st.dir, "haproxy.cfg")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		return nil, err
	}
	proxy, err := st.spawn(ctx, "haproxy", "haproxy", nil, "-db", "-f", cfgPath)
	if err != nil {
		return nil, fmt.Errorf("haproxy (scripts/install-test-deps.sh installs it): %w", err)
	}
	if err := st.waitHealthy(ctx, st.url, proxy, "haproxy"); err != nil {
		return nil, err
	}
	st.proxyPID = proxy.Process.Pid
	return st, nil
}

// startInstance runs casus serve on addr and waits until it answers; it returns the pid.
func (st *stack) startInstance(ctx context.Context, name, bin, addr string, env []string, flags ...string) (int, error) {
	srv, err := st.spawn(ctx, name, bin, append(env, "CASUS_ADDR="+addr), append([]string{"serve"}, flags...)...)
	if err != nil {
		return 0, err
	}
	return srv.Process.Pid, st.waitHealthy(ctx, "http://"+addr, srv, name)
}

// waitHealthy waits until url answers /auth/v1/health, or fails when proc exits first.
func (st *stack) waitHealthy(ctx context.Context, url string, proc *exec.Cmd, name string) error {
	exited := make(chan struct{})
	go func() { _ = proc.Wait(); close(exited) }()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url+"/auth/v1/health", nil)
		req.Header.Set("apikey", st.anonKey)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited; its log: %s", name, filepath.Join(st.dir, name+".log"))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not come up; its log: %s", name, filepath.Join(st.dir, name+".log"))
		}
	}
}

func (st *stack) spawn(ctx context.Context, name, bin string, env []string, args ...string) (*exec.Cmd, error) {
	logf, err := os.Create(filepath.Join(st.dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	// Should this program die without its teardown, the kernel stops the stack with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	st.procs = append(st.procs, cmd)
	return cmd, nil
}

// stop ends the processes it started (interrupt, then kill after 10 s), drops the
// database and removes the directory.
func (st *stack) stop() {
	for i := len(st.procs) - 1; i >= 0; i-- {
		p := st.procs[i].Process
		_ = p.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _, _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Kill()
		}
	}
	st.dropDB()
	if st.dir != "" {
		_ = os.RemoveAll(st.dir)
	}
}

type rssSample struct {
	at  time.Time
	rss int64
}

type rssSampler struct {
	mu      sync.Mutex
	samples []rssSample
	done    chan struct{}
	stopped chan struct{}
}

// sampleRSS reads the process's VmRSS from /proc every second until stop.
func sampleRSS(ctx context.Context, pid int) *rssSampler {
	s := &rssSampler{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		if pid <= 0 {
			return
		}
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if rss := readRSS(pid); rss > 0 {
				s.mu.Lock()
				s.samples = append(s.samples, rssSample{time.Now(), rss})
				s.mu.Unlock()
			}
			select {
			case <-t.C:
			case <-s.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() []rssSample {
	close(s.done)
	<-s.stopped
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}

func readRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
