// Package benchutil holds what the benchmark programs share: a throwaway database, a
// casus server process on loopback, tokens, and percentile arithmetic.
package benchutil

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"casus/scripts/internal/dbdrop"
)

// Secret is the JWT secret of benchmark servers.
const Secret = "bench-secret-that-is-at-least-32-bytes-long!!"

// AdminURL is the maintenance connection (same default as the tests).
func AdminURL() string {
	if u := os.Getenv("CASUS_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// WithDatabase replaces the database name of a postgres:// URL.
func WithDatabase(url, name string) string {
	q := ""
	if i := strings.IndexByte(url, '?'); i >= 0 {
		url, q = url[:i], url[i:]
	}
	return url[:strings.LastIndexByte(url, '/')+1] + name + q
}

// TempDatabase creates an empty database and returns its URL and a drop function.
func TempDatabase(ctx context.Context, prefix string) (string, func(), error) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", nil, err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "create database "+name); err != nil {
		return "", nil, err
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), AdminURL())
		if err == nil {
			_ = dbdrop.Drop(context.Background(), c, name)
			_, _ = c.Exec(context.Background(), "drop role if exists "+LoginRole(name))
			c.Close(context.Background())
		}
	}
	return WithDatabase(AdminURL(), name), drop, nil
}

// Server is a casus server process started for a benchmark.
type Server struct {
	URL string
	Cmd *exec.Cmd
}

// StartServer runs bin/casus serve (built by `make bench`) against the database.
func StartServer(ctx context.Context, databaseURL string, extraEnv ...string) (*Server, error) {
	bin, err := filepath.Abs("bin/casus")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s not built: run `make build/server` first", bin)
	}
	return StartServerBinary(ctx, bin, databaseURL, extraEnv...)
}

// StartServerBinary is StartServer with another casus binary (a baseline built from an
// older revision, see BuildRevision).
func StartServerBinary(ctx context.Context, bin, databaseURL string, extraEnv ...string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	state, _ := os.MkdirTemp("", "casus-bench-")
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+databaseURL, "CASUS_ADDR="+addr, "JWT_SECRET="+Secret,
		"SITE_URL=http://"+addr, "CASUS_STATE_DIR="+state, "FRONTEND_DIR="+state, "MAILER_AUTOCONFIRM=true",
		"RATE_LIMIT_ENABLED=false")
	cmd.Env = append(cmd.Env, extraEnv...)
	logf, _ := os.Create(filepath.Join(state, "server.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, Cmd: cmd}
	// Up to a minute: migrating, and creating the realtime slot (which waits for the
	// transactions running on the cluster), may take a while on a busy machine.
	for i := 0; i < 1200; i++ {
		if res, err := http.Get(s.URL + "/config.json"); err == nil {
			res.Body.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("server did not start; log in %s", logf.Name())
}

// Stop ends the server process.
func (s *Server) Stop() {
	if s.Cmd.Process != nil {
		_ = s.Cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.Cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = s.Cmd.Process.Kill()
		}
	}
}

// RSS is the server's resident memory in bytes.
func (s *Server) RSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// LoginRole is the API pool's login role of a database, and AuthenticatorPassword its
// password for the benchmark secret (the derivations of server/internal/db, for names
// that are plain identifiers).
func LoginRole(database string) string { return database + "_authenticator" }

// AuthenticatorPassword: see LoginRole.
func AuthenticatorPassword(role string) string {
	m := hmac.New(sha256.New, []byte(Secret))
	m.Write([]byte("casus authenticator role " + role))
	return hex.EncodeToString(m.Sum(nil))
}

// Token signs a JWT for a role (and subject, for users).
func Token(role, sub string, ttl time.Duration) string {
	c := jwt.MapClaims{"role": role, "exp": time.Now().Add(ttl).Unix(), "iat": time.Now().Unix()}
	if sub != "" {
		c["sub"] = sub
		c["aud"] = "authenticated"
	}
	t, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(Secret))
	return t
}

// Percentile returns the p-th percentile (0–100) of the durations.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// MS formats a duration in milliseconds.
func MS(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// KeepBackendHeap is the server's connection setup (db.KeepBackendHeap, which a program
// outside server/ cannot import): one 4 MB allocation that raises glibc's trim threshold
// in the new backend. Baseline pools use it so both sides run on identically prepared
// backends and the ratio compares only the request work.
func KeepBackendHeap(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "select octet_length(repeat(repeat(' ', 4096), 1024))")
	return err
}

// BuildRevision builds the casus binary of a git revision (a branch, tag or commit of
// the repository in the working directory) in a temporary worktree, for a baseline
// measured side by side with the current binary; cleanup removes it.
func BuildRevision(ctx context.Context, rev string) (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "casus-baseline-")
	if err != nil {
		return "", nil, err
	}
	tree := filepath.Join(dir, "tree")
	cleanup = func() {
		_ = exec.Command("git", "worktree", "remove", "--force", tree).Run()
		_ = os.RemoveAll(dir)
	}
	run := func(wd string, name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = wd
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run("", "git", "worktree", "add", "--detach", tree, rev); err != nil {
		cleanup()
		return "", nil, err
	}
	bin = filepath.Join(dir, "casus")
	if err := run(tree, "go", "build", "-o", bin, "./server/cmd/casus"); err != nil {
		cleanup()
		return "", nil, err
	}
	return bin, cleanup, nil
}
