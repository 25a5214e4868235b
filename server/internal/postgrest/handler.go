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

	"casus/server/internal/authn"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the data API.
type Server struct {
	d      deps.Deps
	cache  cache
	cancel context.CancelFunc
}

// New loads the schema cache and starts watching for reloads.
func New(ctx context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d}
	if err := checkSchemas(ctx, d.API, d.Config.DBSchemas); err != nil {
		return nil, err
	}
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

// Reload refreshes the schema cache now (at start, on NOTIFY pgrst, and in tests that
// create tables), then warns about exposed relations without row-level security.
func (s *Server) Reload(ctx context.Context) error {
	sc, err := loadSchema(ctx, s.d.Owner, s.d.Config.DBSchemas)
	if err != nil {
		return err
	}
	s.cache.v.Store(sc)
	warnUnprotected(ctx, s.d.Owner, s.d.Config.DBSchemas, s.d.Log)
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
	req, err := Parse(r, s.d.Config.DBSchemas)
	if err != nil {
		return err
	}
	// The client's address as this server resolved it (TRUSTED_PROXIES), in the header a
	// gateway such as Supabase's sets: request.headers->>'x-real-ip' for per-client limits
	// in SQL. A client's own X-Real-IP is overwritten, never believed.
	req.Headers["x-real-ip"] = httpx.ClientIP(r, s.d.Config.TrustedProxies)
	if req.Target.Kind == TargetRoot {
		httpx.WriteJSON(w, 200, map[string]any{"swagger": "2.0", "info": map[string]string{"title": "Casus data API"}})
		return nil
	}
	plan, err := Plan(req, s.cache.get(), PlanConfig{MaxRows: s.d.Config.DBMaxRows, Aggregates: s.d.Config.DBAggregatesEnabled, Explain: s.d.Config.DBPlanEnabled})
	if err != nil {
		return err
	}
	x := &exchange{ctx: r.Context(), id: id}
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
