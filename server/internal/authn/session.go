package authn

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"hash"
	"math"
	"strings"
	"time"
)

// SessionToken is what a user request needs from its bearer token.
type SessionToken struct {
	Subject   string `json:"sub"`
	Role      string `json:"role"`
	SessionID string `json:"session_id"`
	// Expiry and NotBefore in seconds since the epoch, as NumericDate reads them.
	Exp *float64 `json:"exp"`
	Nbf *float64 `json:"nbf"`
	// Read only to reject what golang-jwt's RegisteredClaims would not decode.
	Aud json.RawMessage `json:"aud"`
	Iat *float64        `json:"iat"`
	Iss string          `json:"iss"`
	Jti string          `json:"jti"`
}

// hs256Header is the header every token of ours (and supabase-js's keys) carries.
var hs256Header = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

type verifier struct {
	mac hash.Hash
	buf []byte
}

// VerifySession checks a bearer token exactly as VerifyInto does (HS256 only, signature,
// exp required, nbf, the same 5 s leeway) and decodes only the claims a user request
// needs. It is VerifyInto without golang-jwt's generic machinery (a header map, nested
// decoders per date, a new HMAC per call), for the path every page load takes;
// TestVerifySessionAgreesWithParser and its fuzz target hold the two to the same answers.
func (k *Keys) VerifySession(token string) (SessionToken, error) {
	var st SessionToken
	if len(token) > MaxTokenBytes {
		return st, ErrInvalidToken
	}
	d1 := strings.IndexByte(token, '.')
	if d1 < 0 {
		return st, ErrInvalidToken
	}
	d2 := d1 + 1 + strings.IndexByte(token[d1+1:], '.')
	if d2 <= d1 || strings.IndexByte(token[d2+1:], '.') >= 0 {
		return st, ErrInvalidToken
	}
	header, payload, sig := token[:d1], token[d1+1:d2], token[d2+1:]
	if header != hs256Header {
		// Another spelling of the header: decode it; only "alg":"HS256" is accepted.
		hb, err := base64.RawURLEncoding.DecodeString(header)
		if err != nil {
			return st, ErrInvalidToken
		}
		var h map[string]any
		if json.Unmarshal(hb, &h) != nil {
			return st, ErrInvalidToken
		}
		if alg, _ := h["alg"].(string); alg != "HS256" {
			return st, ErrInvalidToken
		}
	}
	var sigBuf [64]byte
	if base64.RawURLEncoding.DecodedLen(len(sig)) > len(sigBuf) {
		return st, ErrInvalidToken
	}
	n, err := base64.RawURLEncoding.Decode(sigBuf[:], []byte(sig))
	if err != nil {
		return st, ErrInvalidToken
	}
	v := k.verifiers.Get().(*verifier)
	defer k.verifiers.Put(v)
	v.mac.Reset()
	v.buf = append(v.buf[:0], token[:d2]...)
	v.mac.Write(v.buf)
	var sum [sha256.Size]byte
	if !hmac.Equal(v.mac.Sum(sum[:0]), sigBuf[:n]) {
		return st, ErrInvalidToken
	}
	need := base64.RawURLEncoding.DecodedLen(len(payload))
	if cap(v.buf) < need {
		v.buf = make([]byte, need)
	}
	n, err = base64.RawURLEncoding.Decode(v.buf[:need], []byte(payload))
	if err != nil {
		return st, ErrInvalidToken
	}
	if json.Unmarshal(v.buf[:n], &st) != nil || !validAudience(st.Aud) {
		return st, ErrInvalidToken
	}
	now := time.Now()
	if st.Exp == nil {
		return st, ErrInvalidToken
	}
	if !now.Before(numericDate(*st.Exp).Add(leeway)) {
		return st, ErrExpiredToken
	}
	if st.Nbf != nil && now.Before(numericDate(*st.Nbf).Add(-leeway)) {
		return st, ErrInvalidToken
	}
	return st, nil
}

// numericDate is golang-jwt's reading of a NumericDate: seconds with a fraction,
// truncated to whole seconds (its default TimePrecision).
func numericDate(f float64) time.Time {
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).Truncate(time.Second)
}

// validAudience accepts what jwt.ClaimStrings decodes: absent, null, a string or an
// array of strings.
func validAudience(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] == '"' { // a string (the outer decode checked the syntax)
		return true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch a := v.(type) {
	case nil, string:
		return true
	case []any:
		for _, e := range a {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

func (k *Keys) initVerifiers() {
	k.verifiers.New = func() any { return &verifier{mac: hmac.New(sha256.New, k.secret), buf: make([]byte, 0, 1024)} }
}
