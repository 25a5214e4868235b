package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/http"
	"path"
	"strings"
)

// asset is one file held in memory with its gzip form and a content hash, so serving
// it costs no disk access and no compression work per request.
type asset struct {
	body, gz    []byte
	etag        string
	hash        string // first 12 hex digits of the SHA-256
	contentType string
}

func newAsset(name string, body []byte) *asset {
	sum := sha256.Sum256(body)
	a := &asset{body: body, hash: hex.EncodeToString(sum[:])[:12]}
	a.etag = `"` + a.hash + `"`
	a.contentType = mime.TypeByExtension(path.Ext(name))
	if a.contentType == "" {
		a.contentType = http.DetectContentType(body)
	}
	if strings.HasPrefix(a.contentType, "text/") && !strings.Contains(a.contentType, "charset") {
		a.contentType += "; charset=utf-8"
	}
	if compressible(a.contentType) && len(body) > 512 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(body)
		_ = zw.Close()
		if buf.Len() < len(body) {
			a.gz = buf.Bytes()
		}
	}
	return a
}

func compressible(ct string) bool {
	for _, p := range []string{"text/", "application/javascript", "application/json", "image/svg", "application/wasm"} {
		if strings.HasPrefix(ct, p) {
			return true
		}
	}
	return false
}

// serve writes the asset with validators and compression negotiated from the request.
func (a *asset) serve(w http.ResponseWriter, r *http.Request, cacheControl string) {
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", cacheControl)
	h.Set("Content-Type", a.contentType)
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}
