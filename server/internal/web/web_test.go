package web_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

func get(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	// A bare transport: the default one would transparently gunzip.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func TestCodeTextsAreCompressedAndCacheable(t *testing.T) {
	srv := testserver.Start(t, nil)
	res := get(t, srv.URL+"/codes/codul_civil.txt", map[string]string{"Accept-Encoding": "gzip"})
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("status %d, headers %v", res.StatusCode, res.Header)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !strings.HasPrefix(string(body), "CODUL CIVIL") || len(body) < 1_000_000 {
		t.Fatalf("body starts %.40q, %d bytes", body, len(body))
	}
	etag := res.Header.Get("ETag")
	if etag == "" || res.Header.Get("Cache-Control") != "public, max-age=0, must-revalidate" {
		t.Fatalf("validators: %v", res.Header)
	}
	if r := get(t, srv.URL+"/codes/codul_civil.txt", map[string]string{"If-None-Match": etag}); r.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %d", r.StatusCode)
	}

	var index map[string]string
	if err := json.NewDecoder(get(t, srv.URL+"/codes/index.json", nil).Body).Decode(&index); err != nil {
		t.Fatal(err)
	}
	hashed := index["constitutia"]
	if !strings.HasPrefix(hashed, "/codes/constitutia.") || len(index) != 3 {
		t.Fatalf("index: %v", index)
	}
	r := get(t, srv.URL+hashed, nil)
	if r.StatusCode != 200 || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("hashed URL: %d %v", r.StatusCode, r.Header)
	}
	if r := get(t, srv.URL+"/codes/constitutia.000000000000.txt", nil); r.StatusCode != 404 {
		t.Fatalf("stale hash served: %d", r.StatusCode)
	}
	if r := get(t, srv.URL+"/codes/../go.mod", nil); r.StatusCode == 200 {
		t.Fatal("path traversal")
	}
}

func TestConfigAndSPAFallback(t *testing.T) {
	dist := t.TempDir()
	os.MkdirAll(filepath.Join(dist, "assets"), 0o755)
	os.WriteFile(filepath.Join(dist, "index.html"), []byte("<!doctype html><div id=root></div>"), 0o644)
	os.WriteFile(filepath.Join(dist, "assets", "app-abc123.js"), []byte("console.log(1)"), 0o644)
	srv := testserver.Start(t, func(c *config.Config) { c.FrontendDir = dist })

	var cfg map[string]any
	if err := json.NewDecoder(get(t, srv.URL+"/config.json", nil).Body).Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["supabaseUrl"] != srv.URL || cfg["supabaseAnonKey"] != srv.Deps.Keys.AnonKey {
		t.Fatalf("config.json: %v", cfg)
	}
	if strings.Contains(mustBody(t, get(t, srv.URL+"/config.json", nil)), srv.Deps.Keys.ServiceKey) {
		t.Fatal("service key leaked")
	}
	for _, route := range []string{"/", "/login", "/dashboard", "/reset-password"} {
		r := get(t, srv.URL+route, nil)
		if r.StatusCode != 200 || !strings.Contains(mustBody(t, r), "id=root") {
			t.Errorf("%s: %d", route, r.StatusCode)
		}
	}
	if r := get(t, srv.URL+"/assets/app-abc123.js", nil); r.StatusCode != 200 || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("asset: %d %v", r.StatusCode, r.Header)
	}
	if r := get(t, srv.URL+"/assets/missing.js", nil); r.StatusCode != 404 {
		t.Errorf("missing asset: %d", r.StatusCode)
	}
}

func mustBody(t *testing.T, r *http.Response) string {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
