package app_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"casus/server/internal/config"
	"casus/server/internal/httpx"
	"casus/server/internal/testutil/testserver"
)

// closedWithin dials the server, writes what a slow or silent client would, and reports
// how long the server took to close the connection (reading and discarding any answer).
// It fails the test if the connection is still open after limit.
func closedWithin(t *testing.T, addr, send string, limit time.Duration) time.Duration {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, send); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(start.Add(limit))
	_, err = io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after %v (sent %.40q)", limit, send)
	}
	return time.Since(start)
}

// A client that stops half-way through its headers or body, or keeps an idle keep-alive
// connection, is disconnected after the configured timeouts (shortened here), so such
// clients cannot pile up connections.
func TestSlowAndIdleClientsAreDisconnected(t *testing.T) {
	srv := testserver.Start(t, func(c *config.Config) {
		c.HTTPReadHeaderTimeout = 300 * time.Millisecond
		c.HTTPReadTimeout = 600 * time.Millisecond
		c.HTTPIdleTimeout = 400 * time.Millisecond
	})
	addr := strings.TrimPrefix(srv.URL, "http://")
	// The limit is generous for a busy machine, and far below what an unbounded server
	// would allow (the client would wait for ever).
	const limit = 8 * time.Second

	// Headers never finished.
	closedWithin(t, addr, "GET /auth/v1/health HTTP/1.1\r\nHost: x\r\n", limit)

	// A body announced as 1000 bytes, 10 sent.
	closedWithin(t, addr, "POST /auth/v1/signup HTTP/1.1\r\nHost: x\r\napikey: "+srv.Deps.Keys.AnonKey+
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"email\":", limit)

	// A complete request, then silence on the keep-alive connection.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /auth/v1/health HTTP/1.1\r\nHost: x\r\napikey: "+srv.Deps.Keys.AnonKey+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Close {
		t.Fatalf("health: %d close=%v", res.StatusCode, res.Close)
	}
	_ = c.SetReadDeadline(time.Now().Add(limit))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle keep-alive connection: want EOF from the server, got %v", err)
	}
}

// Every response carries the browser protections, and CORS never reflects an origin or
// allows credentials.
func TestSecurityHeadersAndCORS(t *testing.T) {
	srv := testserver.Start(t, nil)
	for _, path := range []string{"/", "/auth/v1/health", "/rest/v1/", "/auth/v1/nope", "/config.json"} {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Origin", "https://evil.example.com")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		if csp != httpx.ContentSecurityPolicy || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
			t.Errorf("%s: headers %v", path, h)
		}
		if o := h.Get("Access-Control-Allow-Origin"); o != "*" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: CORS origin %q credentials %q", path, o, h.Get("Access-Control-Allow-Credentials"))
		}
	}
	req, _ := http.NewRequest("OPTIONS", srv.URL+"/rest/v1/cases", nil)
	req.Header.Set("Origin", "https://evil.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "apikey, authorization, content-type")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "apikey") {
		t.Fatalf("preflight: %d %v", res.StatusCode, res.Header)
	}
}

// Storage, Edge Functions and GraphQL are not part of Casus: their paths answer as
// Supabase's gateway answers an unrouted path (404, Kong's JSON), with and without the
// study app, never the web app's page.
func TestServicesNotPartOfCasusAnswer404(t *testing.T) {
	for _, app := range []string{"study", "none"} {
		srv := testserver.Start(t, func(c *config.Config) { c.App = app })
		for _, r := range []struct{ method, path string }{
			{"GET", "/storage/v1/bucket"}, {"POST", "/storage/v1/object/avatars/a.png"},
			{"POST", "/functions/v1/hello"}, {"POST", "/graphql/v1"},
		} {
			req, _ := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader("{}"))
			req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound || string(body) != `{"message":"no Route matched with those values"}`+"\n" && string(body) != `{"message":"no Route matched with those values"}` {
				t.Fatalf("CASUS_APP=%s %s %s: %d %q", app, r.method, r.path, res.StatusCode, body)
			}
		}
	}
}
