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

func TestFromRequest(t *testing.T) {
	k, _ := NewKeys(secret)
	r := httptest.NewRequest("GET", "/rest/v1/cases", nil)
	if _, err := k.FromRequest(r); err != ErrNoAPIKey {
		t.Fatalf("no key: %v", err)
	}
	r.Header.Set("apikey", "nonsense")
	if _, err := k.FromRequest(r); err != ErrInvalidKey {
		t.Fatalf("bad key: %v", err)
	}
	r.Header.Set("apikey", k.AnonKey)
	r.Header.Set("Authorization", "Bearer "+k.AnonKey)
	got, err := k.FromRequest(r)
	if err != nil || got.Claims.Role != RoleAnon || got.HasUserToken {
		t.Fatalf("anon: %v %+v", err, got)
	}
	r.Header.Set("Authorization", "Bearer "+k.ServiceKey)
	got, err = k.FromRequest(r)
	if err != nil || got.Claims.Role != RoleServiceRole {
		t.Fatalf("service: %v %+v", err, got)
	}
}
