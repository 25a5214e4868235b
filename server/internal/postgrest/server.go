package postgrest

import (
	"context"
	"net/http"

	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the postgrest service. This is a placeholder until its issue lands.
type Server struct{ d deps.Deps }

// New builds the service.
func New(_ context.Context, d deps.Deps) (*Server, error) { return &Server{d: d}, nil }

// Routes registers the service's endpoints.
func (s *Server) Routes(mux *http.ServeMux) {
	_ = httpx.WriteJSON
}
