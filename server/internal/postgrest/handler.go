// Package postgrest serves /rest/v1 as PostgREST does for supabase-js, in PostgREST's
// stages: Parse (request.go) reads the HTTP request into an ApiRequest; Plan (plan.go)
// resolves it against the schema cache (schema.go) into a ReadPlan, MutatePlan or
// CallPlan; Statement (sql.go) writes the one parameterised statement that makes
// PostgreSQL build the JSON body; execute (execute.go) runs it in one transaction as the
// caller's role with PostgREST's settings (db.AsRole); respond (respond.go) decides the
// status and headers. Errors come from one catalogue (errors.go).
package postgrest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"casus/server/internal/authn"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the data API.
type Server struct {
	d     deps.Deps
	cache cache
	// settings are the PostgREST settings in force: the environment's, overridden by
	// the login role's pgrst.* settings (settings.go), swapped on 'reload config'.
	settings atomic.Pointer[Settings]
	cancel   context.CancelFunc
}

// New reads the settings, loads the schema cache and starts watching for reloads.
func New(ctx context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d}
	st, err := s.readSettings(ctx)
	if err != nil {
		return nil, err
	}
	s.settings.Store(st)
	// The first load happens inside the watcher, once it listens, so no DDL between the
	// load and LISTEN goes unheard; New returns when that load is done.
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	started := make(chan error, 1)
	go s.watch(wctx, started)
	select {
	case err := <-started:
		if err != nil {
			cancel()
			return nil, fmt.Errorf("postgrest schema cache: %w", err)
		}
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	return s, nil
}

// Close stops the schema watcher.
func (s *Server) Close() error { s.cancel(); return nil }

// readSettings reads the settings in force (environment and in-database) and checks the
// schemas they expose.
func (s *Server) readSettings(ctx context.Context) (*Settings, error) {
	st, err := loadSettings(ctx, s.d.Owner, s.d.API.Config().ConnConfig.User, s.d.Config, s.d.Log)
	if err != nil {
		return nil, err
	}
	if err := checkSchemas(ctx, s.d.API, st.Schemas); err != nil {
		return nil, err
	}
	return st, nil
}

// ReloadConfig re-reads the settings (NOTIFY pgrst, 'reload config'), then the schema
// cache, whose schemas may have changed. Invalid settings are logged and the ones in
// force kept, as PostgREST does.
func (s *Server) ReloadConfig(ctx context.Context) error {
	st, err := s.readSettings(ctx)
	if err != nil {
		return fmt.Errorf("reload config: %w", err)
	}
	// The cache of the new schemas first, then the settings that expose them: a request
	// that sees the new settings finds their schemas' tables.
	if err := s.load(ctx, st.Schemas); err != nil {
		return err
	}
	s.settings.Store(st)
	return nil
}

// Reload refreshes the schema cache now (at start, on NOTIFY pgrst, and in tests that
// create tables), then warns about exposed relations without row-level security.
func (s *Server) Reload(ctx context.Context) error {
	return s.load(ctx, s.settings.Load().Schemas)
}

// load replaces the schema cache with one of schemas, then warns about exposed relations
// without row-level security.
func (s *Server) load(ctx context.Context, schemas []string) error {
	sc, err := loadSchema(ctx, s.d.Owner, schemas)
	if err != nil {
		return err
	}
	s.cache.v.Store(sc)
	warnUnprotected(ctx, s.d.Owner, schemas, s.d.Log)
	return nil
}

// Routes registers /rest/v1.
func (s *Server) Routes(mux *http.ServeMux) {
	h := httpx.Handle(s.d.Log, s.serve)
	for _, m := range []string{"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"} {
		mux.Handle(m+" /rest/v1/", h)
	}
}

// serve takes a request through the stages in order: identify the caller, Parse
// (request.go), Plan (plan.go), Statement and execute (sql.go, execute.go), respond
// (respond.go). An error at any stage is answered by its *Error (errors.go).
func (s *Server) serve(w http.ResponseWriter, r *http.Request) error {
	id := s.d.Keys.Identify(r)
	switch err := id.Err(); {
	case errors.Is(err, authn.ErrNoAPIKey):
		return errNoAPIKey()
	case errors.Is(err, authn.ErrInvalidKey):
		return errInvalidAPIKey()
	case errors.Is(err, authn.ErrExpiredToken):
		return errJWTExpired()
	case err != nil:
		return errInvalidJWT()
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.d.Config.MaxBodyBytes)
	st := s.settings.Load()
	req, err := Parse(r, st.Schemas)
	if err != nil {
		return err
	}
	// db-tx-end: Prefer: tx is honoured (and reported applied) only when it allows an
	// override; otherwise writes end as it says.
	rollback, override := st.rollback(req.Prefer.Tx)
	if !override {
		req.Prefer.Tx = ""
	}
	req.Prefer.rollback = rollback
	// The client's address as this server resolved it (TRUSTED_PROXIES), in the header a
	// gateway such as Supabase's sets: request.headers->>'x-real-ip' for per-client limits
	// in SQL. A client's own X-Real-IP is overwritten, never believed.
	req.Headers["x-real-ip"] = httpx.ClientIP(r, s.d.Config.TrustedProxies)
	if req.Target.Kind == TargetRoot {
		httpx.WriteJSON(w, 200, map[string]any{"swagger": "2.0", "info": map[string]string{"title": "Casus data API"}})
		return nil
	}
	plan, err := Plan(req, s.cache.get(), PlanConfig{MaxRows: st.MaxRows, Aggregates: st.Aggregates, Explain: st.PlanEnabled})
	if err != nil {
		return err
	}
	x := &exchange{ctx: r.Context(), id: id, settings: st}
	defer x.release()
	if pm := req.Media.Plan; pm != nil {
		resp, err := s.explain(x, plan, pm)
		if err != nil {
			return err
		}
		resp.write(w, r.Method)
		return nil
	}
	res, err := s.execute(x, plan)
	if err != nil {
		return err
	}
	resp, err := respond(plan, res)
	if err != nil {
		return err
	}
	resp.write(w, r.Method)
	return nil
}
