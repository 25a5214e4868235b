package postgrest

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/authn"
)

func TestIdentityCache(t *testing.T) {
	keys, err := authn.NewKeys([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	sign := func(exp time.Duration, sub ...string) string {
		c := &authn.Claims{Role: "authenticated"}
		c.Subject = "u1"
		if len(sub) > 0 {
			c.Subject = sub[0]
		}
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(exp))
		tok, _ := keys.Sign(c)
		return tok
	}
	get := func(c *identityCache, apikey, bearer string) (*authn.Request, error) {
		r := httptest.NewRequest("GET", "/rest/v1/cases", nil)
		r.Header.Set("apikey", apikey)
		if bearer != "" {
			r.Header.Set("Authorization", "Bearer "+bearer)
		}
		return c.fromRequest(keys, r)
	}
	var c identityCache
	user := sign(time.Hour)
	a, err := get(&c, keys.AnonKey, user)
	if err != nil || a.Claims.Subject != "u1" || !a.HasUserToken {
		t.Fatalf("%+v %v", a, err)
	}
	if b, _ := get(&c, keys.AnonKey, user); b != a {
		t.Fatal("second request with the same tokens was verified again")
	}
	// A different bearer is a different identity; a forged one is rejected, never cached.
	if b, err := get(&c, keys.AnonKey, sign(time.Hour, "u2")); err != nil || b == a || b.Claims.Subject != "u2" {
		t.Fatalf("other token: %v", err)
	}
	forged := user[:len(user)-2] + "xx"
	for i := 0; i < 2; i++ {
		if _, err := get(&c, keys.AnonKey, forged); !errors.Is(err, authn.ErrInvalidToken) {
			t.Fatalf("forged token: %v", err)
		}
	}
	// An entry past its token's expiry is not served: the token is verified again (and,
	// here long expired, refused).
	old := sign(-time.Minute)
	c.mu.Lock()
	c.m[keys.AnonKey+"\x00"+old] = cachedIdentity{id: a, expires: time.Now().Add(-time.Second)}
	c.mu.Unlock()
	if _, err := get(&c, keys.AnonKey, old); !errors.Is(err, authn.ErrExpiredToken) {
		t.Fatalf("expired entry served: %v", err)
	}
	// Another signed apikey is cached until the earlier of its and the bearer's expiry.
	shortKey := sign(time.Minute, "k")
	if _, err := get(&c, shortKey, user); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	got := c.m[shortKey+"\x00"+user].expires
	c.mu.Unlock()
	if d := time.Until(got); d > time.Minute || d < 50*time.Second {
		t.Fatalf("entry for a one-minute apikey expires in %s", d)
	}
}
