// Package testserver starts the whole Casus server in-process on a fresh test database,
// listening on a loopback port, for end-to-end Go tests of the HTTP surfaces.
package testserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"casus/server/internal/app"
	"casus/server/internal/config"
	"casus/server/internal/deps"
	"casus/server/internal/testutil/pgtest"
)

// Server is a running test server.
type Server struct {
	URL  string // http://127.0.0.1:port
	Deps deps.Deps
	// Stop shuts the server down before the test ends (as its cleanup would), for tests
	// of what the others do when one instance goes away. Calling it again does nothing.
	Stop func()
}

// Secret is the JWT secret test servers use.
const Secret = "test-secret-that-is-at-least-32-bytes-long!!"

// Start runs a server for the test; tweak adjusts the configuration before start.
func Start(t testing.TB, tweak func(*config.Config)) *Server {
	t.Helper()
	return StartLogging(t, tweak, os.Stderr)
}

// StartLogging is Start with the server's log written to w (for tests of what it logs).
func StartLogging(t testing.TB, tweak func(*config.Config), w io.Writer) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := &config.Config{
		Env: "development", App: "study", Addr: ln.Addr().String(), DatabaseURLSet: true,
		StateDir: t.TempDir(), SiteURL: base, JWTSecret: []byte(Secret), JWTExpiry: time.Hour,
		SMTPPort: 25, SMTPSender: "Casus <no-reply@casus.test>",
		RateLimitSignIn: 1000, RateLimitEmail: 1000, RateLimitVerify: 1000, RateLimitSignUp: 1000, RateLimitOTP: 1000,
		FeedbackPerIP: 1000, FeedbackTotal: 100000,
		// Aggregates on: the data API's tests use them (DB_AGGREGATES_ENABLED is off by default).
		DBAggregatesEnabled: true,
		// Prefer: tx=rollback honoured, as the postgrest-js suite's own server allows it.
		DBTxEnd: "commit-allow-override", DBConfig: true,
		// One idle API connection: most tests make a few requests, and each connection
		// opened at start costs PostgreSQL a backend (the suite starts hundreds of servers).
		DBPoolMin: 1,
		DBSchemas: []string{"public"}, DBMaxRows: 1000, StatementTimeout: 8 * time.Second, MaxBodyBytes: 1 << 20,
		HTTPReadTimeout: 30 * time.Second, HTTPReadHeaderTimeout: 10 * time.Second, HTTPIdleTimeout: 30 * time.Second,
		AIModel: "claude-test", AIModels: []string{"claude-test"}, AIDailyRequests: 1000, AIDailyTokens: 1_000_000,
		FrontendDir: t.TempDir(),
	}
	if tweak != nil {
		tweak(cfg)
	}
	if cfg.DatabaseURL == "" {
		if cfg.StudyApp() {
			cfg.DatabaseURL = pgtest.New(t)
		} else {
			cfg.DatabaseURL = pgtest.NewPlatform(t)
		}
	}
	level := slog.LevelWarn
	if os.Getenv("CASUS_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithCancel(context.Background())
	d, stop, err := app.Prepare(ctx, cfg, log, false)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	h, closeServices, err := app.Handler(ctx, d)
	if err != nil {
		cancel()
		stop()
		t.Fatal(err)
	}
	srv := app.NewHTTPServer(ctx, cfg, h)
	go func() { _ = srv.Serve(ln) }()
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			cancel()
			sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
			defer c()
			_ = srv.Shutdown(sctx)
			closeServices()
			stop()
		})
	}
	t.Cleanup(shutdown)
	return &Server{URL: base, Deps: d, Stop: shutdown}
}
