package authn

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func TestVerifyRejectsForgedAndOtherAlgorithms(t *testing.T) {
	k, err := NewKeys(secret)
	if err != nil {
		t.Fatal(err)
	}
	good := &Claims{Role: RoleAuthenticated}
	good.Subject = "u1"
	good.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, _ := k.Sign(good)
	if c, err := k.Verify(tok); err != nil || c.Subject != "u1" || c.Raw["role"] != "authenticated" {
		t.Fatalf("valid token: %v %+v", err, c)
	}
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
	other, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte("another-secret-another-secret-xx"))
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "service_role"}).SignedString(secret)
	for name, tok := range map[string]string{"none": none, "hs512": hs512, "other secret": other, "no exp": noExp, "garbage": "a.b.c"} {
		if _, err := k.Verify(tok); err != ErrInvalidToken {
			t.Errorf("%s: err=%v, want ErrInvalidToken", name, err)
		}
	}
	expired := &Claims{Role: RoleAuthenticated}
	expired.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Hour))
	etok, _ := k.Sign(expired)
	if _, err := k.Verify(etok); err != ErrExpiredToken {
		t.Errorf("expired: err=%v", err)
	}
}

func TestIdentify(t *testing.T) {
	k, _ := NewKeys(secret)
	r := httptest.NewRequest("GET", "/rest/v1/cases", nil)
	if id := k.Identify(r); id.Err() != ErrNoAPIKey || id.KeyErr != ErrNoAPIKey || id.Claims != nil {
		t.Fatalf("no key: %+v", id)
	}
	r.Header.Set("apikey", "nonsense")
	if id := k.Identify(r); id.Err() != ErrInvalidKey {
		t.Fatalf("bad key: %+v", id)
	}
	r.Header.Set("apikey", k.AnonKey)
	r.Header.Set("Authorization", "Bearer "+k.AnonKey)
	got := k.Identify(r)
	if got.Err() != nil || got.Claims.Role != RoleAnon || got.KeyRole != RoleAnon || !got.Bearer || got.HasUserToken {
		t.Fatalf("anon: %+v", got)
	}
	r.Header.Set("Authorization", "Bearer "+k.ServiceKey)
	got = k.Identify(r)
	if got.Err() != nil || got.Claims.Role != RoleServiceRole || got.KeyRole != RoleAnon {
		t.Fatalf("service: %+v", got)
	}
	// A bad bearer token is reported apart from a good apikey, whose role stays known.
	r.Header.Set("Authorization", "Bearer a.b.c")
	got = k.Identify(r)
	if got.KeyErr != nil || got.KeyRole != RoleAnon || got.BearerErr != ErrInvalidToken || got.Err() != ErrInvalidToken {
		t.Fatalf("bad bearer: %+v", got)
	}
	// The header is read before the query parameter, by every protocol.
	q := httptest.NewRequest("GET", "/realtime/v1/websocket?apikey=nonsense", nil)
	if got := k.Identify(q); got.KeyErr != ErrInvalidKey {
		t.Fatalf("query key: %+v", got)
	}
	q.Header.Set("apikey", k.ServiceKey)
	if got := k.Identify(q); got.KeyErr != nil || got.KeyRole != RoleServiceRole {
		t.Fatalf("header before query: %+v", got)
	}
	// A bearer token alone (the AI gateway's requests) is verified and remembered too.
	user := &Claims{Role: RoleAuthenticated}
	user.Subject = "u9"
	user.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, _ := k.Sign(user)
	b := httptest.NewRequest("POST", "/ai/v1/messages", nil)
	b.Header.Set("Authorization", "Bearer "+tok)
	first := k.Identify(b)
	if first.KeyErr != ErrNoAPIKey || first.BearerErr != nil || !first.HasUserToken || first.Claims.Subject != "u9" {
		t.Fatalf("bearer only: %+v", first)
	}
	if again := k.Identify(b); again != first {
		t.Fatal("a bearer-only identity was verified again")
	}
}
