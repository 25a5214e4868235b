package authn

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// refClaims is the claims type gotrue decodes with VerifyInto for a user request.
type refClaims struct {
	jwt.RegisteredClaims
	Role      string `json:"role"`
	SessionID string `json:"session_id"`
}

// signRaw signs an arbitrary header and payload with HS256 (or the given secret).
func signRaw(header, payload string, key []byte) string {
	enc := base64.RawURLEncoding
	text := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	sig, _ := jwt.SigningMethodHS256.Sign(text, key)
	return text + "." + enc.EncodeToString(sig)
}

// compare checks VerifySession against golang-jwt's parser on one token: never more
// permissive, the same claims when both accept, expired exactly when it says expired.
func compare(t *testing.T, k *Keys, tok string, mustAgree bool) {
	t.Helper()
	var ref refClaims
	refErr := k.VerifyInto(tok, &ref)
	got, err := k.VerifySession(tok)
	if err == nil && refErr != nil {
		t.Fatalf("VerifySession accepts what the parser rejects (%v): %q", refErr, tok)
	}
	if err == nil && (got.Subject != ref.Subject || got.Role != ref.Role || got.SessionID != ref.SessionID) {
		t.Fatalf("claims differ: %+v vs %+v", got, ref)
	}
	if (errors.Is(err, ErrExpiredToken)) != (errors.Is(refErr, ErrExpiredToken)) && (err == nil) == (refErr == nil) {
		t.Fatalf("expiry verdicts differ: %v vs %v for %q", err, refErr, tok)
	}
	if mustAgree && (err == nil) != (refErr == nil) {
		t.Fatalf("verdicts differ: %v vs %v for %q", err, refErr, tok)
	}
}

func TestVerifySessionAgreesWithParser(t *testing.T) {
	k, _ := NewKeys(secret)
	now := time.Now().Unix()
	good := &Claims{Role: RoleAuthenticated, SessionID: "s1", AMR: []AMREntry{{"password", now}}, AppMetadata: map[string]any{"provider": "email"}}
	good.Subject = "u1"
	good.Audience = jwt.ClaimStrings{"authenticated"}
	good.IssuedAt = jwt.NewNumericDate(time.Now())
	good.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	issued, _ := k.Sign(good)
	if c, err := k.VerifySession(issued); err != nil || c.Subject != "u1" || c.Role != RoleAuthenticated || c.SessionID != "s1" {
		t.Fatalf("issued token: %v %+v", err, c)
	}
	hs256 := `{"alg":"HS256","typ":"JWT"}`
	payload := func(extra string) string {
		return `{"sub":"u1","role":"authenticated","session_id":"s1"` + extra + `}`
	}
	num := func(d time.Duration) string { return itoa(time.Now().Add(d).Unix()) }
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"role": "authenticated", "exp": now + 3600}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"role": "authenticated", "exp": now + 3600}).SignedString(secret)
	cases := map[string]string{
		"issued":                  issued,
		"header other order":      signRaw(`{"typ":"JWT","alg":"HS256"}`, payload(`,"exp":`+num(time.Hour)), secret),
		"header without typ":      signRaw(`{"alg":"HS256"}`, payload(`,"exp":`+num(time.Hour)), secret),
		"alg none":                none,
		"alg HS512":               hs512,
		"alg hs256 lowercase":     signRaw(`{"alg":"hs256"}`, payload(`,"exp":`+num(time.Hour)), secret),
		"alg missing":             signRaw(`{"typ":"JWT"}`, payload(`,"exp":`+num(time.Hour)), secret),
		"header not JSON":         signRaw(`nope`, payload(`,"exp":`+num(time.Hour)), secret),
		"other secret":            signRaw(hs256, payload(`,"exp":`+num(time.Hour)), []byte("another-secret-another-secret-xx")),
		"no exp":                  signRaw(hs256, payload(``), secret),
		"expired":                 signRaw(hs256, payload(`,"exp":`+num(-time.Minute)), secret),
		"expired within leeway":   signRaw(hs256, payload(`,"exp":`+num(-2*time.Second)), secret),
		"fractional exp":          signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`.75`), secret),
		"exp as string":           signRaw(hs256, payload(`,"exp":"`+num(time.Hour)+`"`), secret),
		"nbf in the future":       signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`,"nbf":`+num(time.Minute)), secret),
		"nbf within leeway":       signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`,"nbf":`+num(2*time.Second)), secret),
		"aud array":               signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`,"aud":["authenticated","x"]`), secret),
		"aud number":              signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`,"aud":5`), secret),
		"aud array of numbers":    signRaw(hs256, payload(`,"exp":`+num(time.Hour)+`,"aud":[5]`), secret),
		"sub not a string":        signRaw(hs256, `{"sub":5,"exp":`+num(time.Hour)+`}`, secret),
		"payload not an object":   signRaw(hs256, `[1,2]`, secret),
		"payload not JSON":        signRaw(hs256, `{"sub":`, secret),
		"two parts":               issued[:strings.LastIndexByte(issued, '.')],
		"four parts":              issued + ".x",
		"signature tampered":      issued[:len(issued)-2] + "AA",
		"payload swapped":         strings.Split(issued, ".")[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(payload(`,"exp":`+num(time.Hour)))) + "." + strings.Split(issued, ".")[2],
		"empty":                   "",
		"dots only":               "..",
		"signature not base64url": issued[:strings.LastIndexByte(issued, '.')+1] + "!!!",
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			// Where golang-jwt is laxer (a quoted number as exp), VerifySession may refuse.
			compare(t, k, tok, name != "exp as string")
		})
	}
}

func itoa(n int64) string {
	b, _ := jwt.NewNumericDate(time.Unix(n, 0)).MarshalJSON()
	return string(b)
}

// Random tokens (mutated from valid ones) never pass VerifySession unless the parser
// passes them too.
func FuzzVerifySession(f *testing.F) {
	k, _ := NewKeys(secret)
	c := &Claims{Role: RoleAuthenticated, SessionID: "s1"}
	c.Subject = "u1"
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, _ := k.Sign(c)
	f.Add(tok)
	f.Add(signRaw(`{"alg":"HS256"}`, `{"exp":9999999999,"sub":"x","aud":[1]}`, secret))
	f.Add(signRaw(`{"alg":"none"}`, `{"exp":9999999999}`, secret))
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, tok string) {
		compare(t, k, tok, false)
		// Re-signing the fuzzed header and payload reaches the claim checks.
		if i := strings.IndexByte(tok, '.'); i >= 0 {
			enc := base64.RawURLEncoding
			h, err1 := enc.DecodeString(tok[:i])
			rest := tok[i+1:]
			if j := strings.IndexByte(rest, '.'); j >= 0 {
				rest = rest[:j]
			}
			p, err2 := enc.DecodeString(rest)
			if err1 == nil && err2 == nil {
				compare(t, k, signRaw(string(h), string(p), secret), false)
			}
		}
	})
}
