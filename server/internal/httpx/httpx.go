// Package httpx is HTTP plumbing only: an error-returning handler adapter, middleware
// (request id, panic recovery, CORS, access log, body limit) and a JSON writer.
package httpx

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"
)

// Renderer is implemented by errors that know their wire shape (GoTrue, PostgREST,
// Anthropic). Errors that don't are internal and render as a generic 500.
type Renderer interface {
	error
	Render(w http.ResponseWriter, r *http.Request)
}

// HandlerFunc is a handler that returns its error instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Handle adapts an error-returning handler: wire-shaped errors render themselves, any
// other error is logged with its cause and answered with a 500 that reveals nothing.
func Handle(log *slog.Logger, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		var rend Renderer
		if errors.As(err, &rend) {
			rend.Render(w, r)
			return
		}
		log.Error("internal error", "method", r.Method, "path", r.URL.Path, "request_id", r.Header.Get("X-Request-Id"), "err", err)
		WriteJSON(w, http.StatusInternalServerError, map[string]any{"code": 500, "msg": "Internal server error", "error_code": "unexpected_failure"})
	})
}

// WriteJSON writes v as a JSON body with the status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Chain wraps h in middleware, the first listed outermost.
func Chain(h http.Handler, mw ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// RequestID gives every request an id (kept if the client sent a sane one).
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
			r.Header.Set("X-Request-Id", id)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r)
	})
}

// Recover turns a panic into a logged 500 instead of a dropped connection.
func Recover(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.Error("panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
					WriteJSON(w, http.StatusInternalServerError, map[string]any{"code": 500, "msg": "Internal server error", "error_code": "unexpected_failure"})
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// CORS allows browser clients on other origins, as Supabase's gateway does: any origin,
// never with credentials. Access is decided by keys, tokens and RLS (sent as headers,
// never as cookies), so no origin is reflected and no browser credentials are invited.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Header.Get("Origin") != "" {
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Expose-Headers", "Content-Range, Content-Location, Location, Preference-Applied, X-Request-Id, X-Supabase-Api-Version, retry-after")
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD")
			if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
				h.Set("Access-Control-Allow-Headers", req)
			}
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ContentSecurityPolicy is the policy of every response. The web app is built without
// inline scripts; it talks only to its own origin ('self' covers the same-origin
// WebSocket of realtime and the AI gateway under /ai). React sets styles through the
// DOM, which style-src does not restrict; the few style attributes in server-rendered
// pages (mails, the development outbox) need 'unsafe-inline' for styles only.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders sets the browser protections on every response: the CSP (no framing),
// no MIME sniffing, and no full URLs (tokens in links) in the Referer of other origins.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether the socket peer (never a forwarded address) is loopback.
func IsLoopback(r *http.Request) bool {
	a := peerAddr(r.RemoteAddr)
	return a.IsValid() && a.IsLoopback()
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Flush keeps streaming (SSE) working through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack lets websocket upgrades through the recorder.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("connection cannot be hijacked")
	}
	if s.status == 0 {
		s.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer (hijack, deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// AccessLog logs method, path (no query string: it may carry tokens), status, size and
// duration. Bodies and headers are never logged.
func AccessLog(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			// Typed attributes: no boxing of each value on a path every request takes.
			log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
				slog.Float64("ms", float64(time.Since(start).Microseconds())/1000), slog.String("request_id", r.Header.Get("X-Request-Id")))
		})
	}
}

// ClientIP is the caller's address for rate limits and session records. The socket peer
// is the client unless it is one of the trusted proxies; then X-Forwarded-For is read from
// the right (each proxy appends the address it saw) and the right-most hop that is not a
// trusted proxy is the client. Hops left of it were written by the client itself and are
// ignored, so a forged header cannot choose the address. With no trusted proxies (the
// default) the header is never read.
func ClientIP(r *http.Request, trusted []netip.Prefix) string {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() {
		return r.RemoteAddr
	}
	if !inPrefixes(peer, trusted) {
		return peer.String()
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		h := hops[i]
		for h != "" {
			var hop string
			if j := strings.LastIndexByte(h, ','); j >= 0 {
				hop, h = h[j+1:], h[:j]
			} else {
				hop, h = h, ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a, err := netip.ParseAddr(hop)
			if err != nil { // some proxies write "addr:port" or "[v6]:port"
				var ap netip.AddrPort
				ap, err = netip.ParseAddrPort(hop)
				a = ap.Addr()
			}
			if err != nil {
				// A trusted proxy only writes addresses: garbage came from further left,
				// so the nearest trusted hop is as far as the chain can be believed.
				return client.String()
			}
			client = a.Unmap()
			if !inPrefixes(client, trusted) {
				return client.String()
			}
		}
	}
	return client.String() // every hop is a trusted address: the left-most one
}

func peerAddr(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(remote)
	return a.Unmap()
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
