// Package web serves what the browser loads directly: the built single-page app (with
// an index.html fallback for client routes), /config.json, and the legal code texts.
package web

import (
	"context"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"casus/codes"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "public, max-age=0, must-revalidate"
)

// Server serves static content held in memory.
type Server struct {
	d      deps.Deps
	files  map[string]*asset // SPA files by URL path
	codes  map[string]*asset // code texts by name ("codul_civil")
	config []byte
}

// New loads the SPA build and the code texts into memory.
func New(_ context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d, files: map[string]*asset{}}
	if err := s.loadDir(d.Config.FrontendDir); err != nil {
		return nil, err
	}
	var err error
	if s.codes, err = embeddedCodes(); err != nil {
		return nil, err
	}
	return s, nil
}

// Routes registers the static endpoints; "/" is the SPA fallback and so the catch-all.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /config.json", s.configJSON)
	mux.HandleFunc("GET /codes/index.json", s.codesIndex)
	mux.HandleFunc("GET /codes/{file}", s.codeText)
	mux.HandleFunc("GET /", s.spa)
}

func (s *Server) loadDir(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return nil // not built: spa() explains
			}
			return err
		}
		if e.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.files["/"+filepath.ToSlash(rel)] = newAsset(p, b)
		return nil
	})
}

// embeddedCodes are the legal texts embedded in the binary (so a deployment needs no
// data directory next to it), by name. They are hashed and compressed once per process:
// the same for every Server, and compressing them at the best level costs 100–170 ms of
// CPU, which every test server's start used to pay again.
var embeddedCodes = sync.OnceValues(func() (map[string]*asset, error) {
	matches, err := fs.Glob(codes.Texts, "*.txt")
	if err != nil {
		return nil, err
	}
	out := map[string]*asset{}
	for _, p := range matches {
		b, err := fs.ReadFile(codes.Texts, p)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(p, ".txt")] = newAsset(p, b)
	}
	return out, nil
})

// configJSON tells one frontend build where its backend is and with which public key.
func (s *Server) configJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, map[string]any{
		"supabaseUrl":     s.d.Config.SiteURL,
		"supabaseAnonKey": s.d.Keys.AnonKey,
		"aiEnabled":       s.d.Config.AIProvider != "",
		"aiModel":         s.d.Config.AIModel,
	})
}

// codesIndex lists each code text under its content-hashed URL, cacheable forever.
func (s *Server) codesIndex(w http.ResponseWriter, r *http.Request) {
	names := make([]string, 0, len(s.codes))
	for n := range s.codes {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]string{}
	for _, n := range names {
		out[n] = "/codes/" + n + "." + s.codes[n].hash + ".txt"
	}
	w.Header().Set("Cache-Control", "no-cache")
	httpx.WriteJSON(w, http.StatusOK, out)
}

// codeText serves /codes/<name>.txt (revalidated by ETag) and /codes/<name>.<hash>.txt
// (immutable: the URL changes when the text does).
func (s *Server) codeText(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	base, ok := strings.CutSuffix(file, ".txt")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if a := s.codes[base]; a != nil {
		a.serve(w, r, cacheRevalidate)
		return
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		if a := s.codes[base[:i]]; a != nil && a.hash == base[i+1:] {
			a.serve(w, r, cacheImmutable)
			return
		}
	}
	http.NotFound(w, r)
}

// spa serves a built file, or index.html for client-side routes.
func (s *Server) spa(w http.ResponseWriter, r *http.Request) {
	p := path.Clean("/" + r.URL.Path)
	if a := s.files[p]; a != nil && p != "/index.html" {
		cc := cacheRevalidate
		if strings.HasPrefix(p, "/assets/") {
			cc = cacheImmutable // Vite puts a content hash in every asset name
		}
		a.serve(w, r, cc)
		return
	}
	if path.Ext(p) != "" && p != "/index.html" {
		http.NotFound(w, r)
		return
	}
	index := s.files["/index.html"]
	if index == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("The web app is not built. Run `make run` (it builds frontend/dist) or set FRONTEND_DIR.\n"))
		return
	}
	index.serve(w, r, "no-cache")
}
