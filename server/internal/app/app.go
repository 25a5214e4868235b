// Package app is the composition root: it brings up the database, migrates, builds the
// services and serves them until the context ends.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"casus/server/internal/aigw"
	"casus/server/internal/authn"
	"casus/server/internal/config"
	"casus/server/internal/db"
	"casus/server/internal/debugserver"
	"casus/server/internal/deps"
	"casus/server/internal/gotrue"
	"casus/server/internal/httpx"
	"casus/server/internal/postgrest"
	"casus/server/internal/realtime"
	"casus/server/internal/seminar"
	"casus/server/internal/web"
)

// Options are the serve command's switches.
type Options struct {
	NoMigrate bool
	// Listener, when set, is used instead of listening on Config.Addr (tests).
	Listener net.Listener
	// BeforeServe, when set, runs after migrations and before serving (make run seeds here).
	BeforeServe func(context.Context, deps.Deps) error
	// Ready, when set, is called once the server accepts requests.
	Ready func(addr string)
}

// service is what each HTTP surface provides to the root.
type service interface {
	Routes(mux *http.ServeMux)
}

// Prepare brings up and migrates the database and opens the pools. The returned stop
// function closes the pools and stops a private cluster if one was started.
func Prepare(ctx context.Context, cfg *config.Config, log *slog.Logger, migrate bool) (deps.Deps, func(), error) {
	url, stopCluster, err := db.Bring(ctx, log, cfg.DatabaseURL, cfg.DatabaseURLSet, cfg.StateDir)
	if err != nil {
		return deps.Deps{}, func() {}, err
	}
	if migrate {
		v, err := db.Migrate(ctx, url, cfg.StudyApp())
		if err != nil {
			stopCluster()
			return deps.Deps{}, func() {}, fmt.Errorf("migrate: %w", err)
		}
		log.Info("database migrated", "platform", v.Platform, "app", v.App)
	}
	pools, err := db.OpenPools(ctx, url, cfg.JWTSecret, db.PoolOptions{
		Role: cfg.DBAuthenticator, OwnerConns: int32(cfg.DBOwnerPool), APIConns: int32(cfg.DBPool),
		APIMinConns: int32(cfg.DBPoolMin), StatementTimeout: cfg.StatementTimeout,
	})
	if err != nil {
		stopCluster()
		return deps.Deps{}, func() {}, err
	}
	keys, err := authn.NewKeys(cfg.JWTSecret)
	if err != nil {
		pools.Close()
		stopCluster()
		return deps.Deps{}, func() {}, err
	}
	d := deps.Deps{Config: cfg, DatabaseURL: url, Owner: pools.Owner, API: pools.API, Keys: keys, Log: log}
	return d, func() { pools.Close(); stopCluster() }, nil
}

// Handler builds every service and returns the root handler and a closer for them.
func Handler(ctx context.Context, d deps.Deps) (http.Handler, func(), error) {
	mux := http.NewServeMux()
	var closers []io.Closer
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i].Close()
		}
	}
	builders := []func(context.Context, deps.Deps) (service, error){
		func(ctx context.Context, d deps.Deps) (service, error) { return gotrue.New(ctx, d) },
		func(ctx context.Context, d deps.Deps) (service, error) { return postgrest.New(ctx, d) },
		func(ctx context.Context, d deps.Deps) (service, error) { return realtime.New(ctx, d) },
	}
	// The study app's own surfaces: its AI gateway (prompts over its tables) and web app.
	if d.Config.StudyApp() {
		if err := syncMFARoles(ctx, d); err != nil {
			return nil, func() {}, err
		}
		if err := syncFeedbackLimits(ctx, d); err != nil {
			return nil, func() {}, err
		}
		builders = append(builders,
			func(ctx context.Context, d deps.Deps) (service, error) { return aigw.New(ctx, d) },
			func(ctx context.Context, d deps.Deps) (service, error) { return web.New(ctx, d) },
			func(ctx context.Context, d deps.Deps) (service, error) { return seminar.New(ctx, d) },
		)
	}
	for _, build := range builders {
		s, err := build(ctx, d)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		if c, ok := s.(io.Closer); ok {
			closers = append(closers, c)
		}
		s.Routes(mux)
	}
	notPartOfCasus(mux)
	h := httpx.Chain(signInsFirst(mux, gotrue.YieldToSignIns),
		httpx.RequestID,
		httpx.Recover(d.Log),
		httpx.AccessLog(d.Log),
		httpx.SecurityHeaders,
		httpx.CORS,
	)
	return h, closeAll, nil
}

// signInsFirst defers the data API's and the AI gateway's requests while password
// sign-ins are backlogged (gotrue.YieldToSignIns): what students already signed in ask
// waits a little so that those arriving are let in. Auth, realtime and the web app's
// files are not held.
func signInsFirst(mux http.Handler, yield func(http.Handler) http.Handler) http.Handler {
	held := yield(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/rest/v1/") || strings.HasPrefix(r.URL.Path, "/ai/v1/") {
			held.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// NewHTTPServer is the server for the handler with the configured timeouts: a request's
// headers and whole body must arrive in time and idle keep-alive connections are closed,
// so slow or silent clients cannot hold connections (and their goroutines) open. There is
// no write timeout: AI replies stream for minutes. WebSocket connections are hijacked and
// keep their own deadlines.
func NewHTTPServer(ctx context.Context, cfg *config.Config, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadTimeout:       cfg.HTTPReadTimeout,
		ReadHeaderTimeout: cfg.HTTPReadHeaderTimeout,
		IdleTimeout:       cfg.HTTPIdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
}

// Run serves the app until ctx ends, then shuts down gracefully.
func Run(ctx context.Context, cfg *config.Config, log *slog.Logger, opts Options) error {
	d, stop, err := Prepare(ctx, cfg, log, !opts.NoMigrate)
	if err != nil {
		return err
	}
	defer stop()
	if opts.BeforeServe != nil {
		if err := opts.BeforeServe(ctx, d); err != nil {
			return err
		}
	}
	h, closeServices, err := Handler(ctx, d)
	if err != nil {
		return err
	}
	defer closeServices()

	if cfg.PprofAddr != "" {
		if err := debugserver.Start(ctx, cfg.PprofAddr, log); err != nil {
			return err
		}
	}
	ln := opts.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return err
		}
	}
	srv := NewHTTPServer(ctx, cfg, h)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("casus is serving", "addr", ln.Addr().String(), "site_url", cfg.SiteURL)
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// notPartOfCasus answers the paths of the Supabase services Casus does not implement
// (Storage, Edge Functions, GraphQL) as Supabase's API gateway answers a path no service
// is routed to: 404 with Kong's JSON message, which storage-js and functions-js report as
// an error. Without it the study app's web app would answer them with its index page.
func notPartOfCasus(mux *http.ServeMux) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		httpx.WriteJSON(w, http.StatusNotFound, map[string]string{"message": "no Route matched with those values"})
	})
	for _, p := range []string{"/storage/v1/", "/functions/v1/", "/graphql/v1"} {
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			mux.Handle(m+" "+p, h) // per method, beside the web app's "GET /"
		}
	}
}
