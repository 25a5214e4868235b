package authn

import (
	"bytes"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestIdentifyCache(t *testing.T) {
	keys, err := NewKeys([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	sign := func(exp time.Duration, sub ...string) string {
		c := &Claims{Role: "authenticated"}
		c.Subject = "u1"
		if len(sub) > 0 {
			c.Subject = sub[0]
		}
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(exp))
		tok, _ := keys.Sign(c)
		return tok
	}
	get := func(_ *identityCache, apikey, bearer string) (*Identity, error) {
		r := httptest.NewRequest("GET", "/rest/v1/cases", nil)
		r.Header.Set("apikey", apikey)
		if bearer != "" {
			r.Header.Set("Authorization", "Bearer "+bearer)
		}
		id := keys.Identify(r)
		return id, id.Err()
	}
	c := &keys.ids
	user := sign(time.Hour)
	a, err := get(c, keys.AnonKey, user)
	if err != nil || a.Claims.Subject != "u1" || !a.HasUserToken {
		t.Fatalf("%+v %v", a, err)
	}
	if a.Claims.RawJSON == nil || a.Claims.Raw != nil || a.Claims.UserMetadata != nil {
		t.Fatalf("a cached identity keeps the claims JSON only: %+v", a.Claims)
	}
	if b, _ := get(c, keys.AnonKey, user); b != a {
		t.Fatal("second request with the same tokens was verified again")
	}
	// A different bearer is a different identity; a forged one is rejected, never cached.
	if b, err := get(c, keys.AnonKey, sign(time.Hour, "u2")); err != nil || b == a || b.Claims.Subject != "u2" {
		t.Fatalf("other token: %v", err)
	}
	forged := user[:len(user)-2] + "xx"
	for i := 0; i < 2; i++ {
		if _, err := get(c, keys.AnonKey, forged); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("forged token: %v", err)
		}
	}
	// An entry past its token's expiry is not served: the token is verified again (and,
	// here long expired, refused).
	old := sign(-time.Minute)
	c.mu.Lock()
	c.m[keys.AnonKey+"\x00"+old] = cachedIdentity{id: a, expires: time.Now().Add(-time.Second), size: 1}
	c.mu.Unlock()
	if _, err := get(c, keys.AnonKey, old); !errors.Is(err, ErrExpiredToken) {
		t.Fatalf("expired entry served: %v", err)
	}
	// Another signed apikey is cached until the earlier of its and the bearer's expiry.
	shortKey := sign(time.Minute, "k")
	if _, err := get(c, shortKey, user); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	got := c.m[shortKey+"\x00"+user].expires
	c.mu.Unlock()
	if d := time.Until(got); d > time.Minute || d < 50*time.Second {
		t.Fatalf("entry for a one-minute apikey expires in %s", d)
	}
}

// Tokens with large metadata, many of them: the cache stays within its byte bound and
// the process's heap does not grow with the number of tokens (before, each cached 700 kB
// identity held about 4.9 MB, and 4,096 of them were kept).
func TestIdentifyCacheIsBoundedByBytes(t *testing.T) {
	keys, err := NewKeys([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.Repeat("x", 30_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 800 {
		cl := &Claims{Role: "authenticated", UserMetadata: map[string]any{"blob": blob, "i": i}}
		cl.Subject = fmt.Sprint("user-", i)
		cl.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		tok, _ := keys.Sign(cl)
		r := httptest.NewRequest("GET", "/rest/v1/cases", nil)
		r.Header.Set("apikey", keys.AnonKey)
		r.Header.Set("Authorization", "Bearer "+tok)
		id := keys.Identify(r)
		if err := id.Err(); err != nil || id.Claims.Subject != cl.Subject || !bytes.Contains(id.Claims.RawJSON, []byte(blob)) {
			t.Fatalf("token %d: %v", i, err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("800 tokens of ~70 kB: heap +%d MB, cache %d bytes", (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>20, keys.CachedBytes())
	if keys.CachedBytes() > maxCacheBytes {
		t.Fatalf("cache holds %d bytes, bound %d", keys.CachedBytes(), maxCacheBytes)
	}
	// 800 tokens of ~70 kB (token + claims JSON) grew the heap by ~107 MB when all were
	// kept with their decoded metadata; the bound is 8 MB.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 24<<20 {
		t.Fatalf("heap grew by %d MB", grew>>20)
	}
}

// A token larger than MaxTokenBytes is refused before it is parsed, however well signed.
func TestOversizedTokenIsRefused(t *testing.T) {
	keys, _ := NewKeys([]byte("0123456789abcdef0123456789abcdef"))
	cl := &Claims{Role: "authenticated", UserMetadata: map[string]any{"blob": strings.Repeat("x", MaxTokenBytes)}}
	cl.Subject = "u"
	cl.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, _ := keys.Sign(cl)
	if _, err := keys.Verify(tok); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("Verify: %v", err)
	}
}
