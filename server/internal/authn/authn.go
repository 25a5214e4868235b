// Package authn turns the apikey header and the bearer token into verified Claims.
//
// Only HS256 is accepted: the algorithm list is fixed so that "alg":"none" or an
// asymmetric-key confusion can never verify. No handlers and no database here.
package authn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Database roles a request can run as.
const (
	RoleAnon          = "anon"
	RoleAuthenticated = "authenticated"
	RoleServiceRole   = "service_role"
)

// GoTrue writes a single audience as a string ("aud":"authenticated"), so policies can
// compare auth.jwt()->>'aud'; golang-jwt's default is an array. Decoding still accepts
// both, so tokens issued before this change stay valid.
func init() { jwt.MarshalSingleStringAsArray = false }

// Claims are the verified contents of a JWT, GoTrue's claim set.
type Claims struct {
	jwt.RegisteredClaims
	Role         string         `json:"role"`
	Email        string         `json:"email,omitempty"`
	Phone        string         `json:"phone,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	AppMetadata  map[string]any `json:"app_metadata,omitempty"`
	UserMetadata map[string]any `json:"user_metadata,omitempty"`
	AAL          string         `json:"aal,omitempty"`
	AMR          []AMREntry     `json:"amr,omitempty"`
	IsAnonymous  bool           `json:"is_anonymous"`
	// Raw is the verified payload exactly as signed; it becomes request.jwt.claims.
	Raw map[string]any `json:"-"`
	// RawJSON is Raw encoded once at verification, so a cached token costs no encoding
	// per request.
	RawJSON []byte `json:"-"`
}

// AMREntry is one authentication method reference, as GoTrue emits them.
type AMREntry struct {
	Method    string `json:"method"`
	Timestamp int64  `json:"timestamp"`
}

// UserID is the subject of a user token ("" for the anon and service keys).
func (c *Claims) UserID() string {
	if c == nil {
		return ""
	}
	return c.Subject
}

// Errors returned by Verify and FromRequest; callers map them to their wire shape.
var (
	ErrNoAPIKey     = errors.New("no API key found in request")
	ErrInvalidKey   = errors.New("invalid API key")
	ErrInvalidToken = errors.New("invalid JWT")
	ErrExpiredToken = errors.New("JWT expired")
)

// Keys signs and verifies tokens with one HS256 secret and holds the two project keys.
type Keys struct {
	secret     []byte
	AnonKey    string
	ServiceKey string
	verifiers  sync.Pool // *verifier: keyed HMAC state for VerifySession
}

// NewKeys derives the anon and service-role keys from the secret. They are
// deterministic (fixed iat) so `casus keys` prints the same values every time.
func NewKeys(secret []byte) (*Keys, error) {
	k := &Keys{secret: secret}
	k.initVerifiers()
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(role string) (string, error) {
		c := jwt.MapClaims{"iss": "casus", "role": role, "iat": issued.Unix(), "exp": issued.AddDate(10, 0, 0).Unix()}
		return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
	}
	var err error
	if k.AnonKey, err = mk(RoleAnon); err != nil {
		return nil, err
	}
	if k.ServiceKey, err = mk(RoleServiceRole); err != nil {
		return nil, err
	}
	return k, nil
}

// Sign issues an HS256 token for the claims.
func (k *Keys) Sign(c *Claims) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(k.secret)
}

// MaxTokenBytes bounds the tokens verified: ours carry at most 16 kB of each metadata
// (checked by the auth service), and a larger token would only cost parsing and memory.
const MaxTokenBytes = 64 << 10

// leeway is the clock skew allowed on exp and nbf.
const leeway = 5 * time.Second

var parser = jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(leeway))

// Verify checks signature, algorithm and expiry and returns the claims.
func (k *Keys) Verify(token string) (*Claims, error) {
	c, err := k.VerifyClaims(token)
	if err != nil {
		return nil, err
	}
	raw := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, raw); err != nil {
		return nil, ErrInvalidToken
	}
	c.Raw = raw
	if c.RawJSON, err = json.Marshal(raw); err != nil {
		return nil, ErrInvalidToken
	}
	return c, nil
}

// VerifyInto checks signature, algorithm and expiry like Verify, decoding the payload
// into the caller's claims type: a hot path that needs two claims need not decode the
// user's metadata.
func (k *Keys) VerifyInto(token string, c jwt.Claims) error {
	if len(token) > MaxTokenBytes {
		return ErrInvalidToken
	}
	_, err := parser.ParseWithClaims(token, c, func(*jwt.Token) (any, error) { return k.secret, nil })
	if err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			return ErrExpiredToken
		}
		return ErrInvalidToken
	}
	return nil
}

// VerifyClaims is Verify without Raw (one parse instead of two), for callers that only
// read the typed claims, such as GET /auth/v1/user.
func (k *Keys) VerifyClaims(token string) (*Claims, error) {
	c := &Claims{}
	if err := k.VerifyInto(token, c); err != nil {
		return nil, err
	}
	if c.Role == "" {
		c.Role = RoleAnon
	}
	return c, nil
}

// Request is what the apikey and Authorization headers say about a caller.
type Request struct {
	// APIKeyRole is the role of the project key in the apikey header.
	APIKeyRole string
	// Claims come from the bearer token when one is present, else from the apikey.
	Claims *Claims
	// HasUserToken is true when the bearer token is a user's session token.
	HasUserToken bool
}

// FromRequest verifies the apikey header (required) and the optional bearer token.
func (k *Keys) FromRequest(r *http.Request) (*Request, error) {
	key := r.Header.Get("apikey")
	if key == "" {
		key = r.URL.Query().Get("apikey")
	}
	bearer := BearerToken(r)
	if key == "" {
		return nil, ErrNoAPIKey
	}
	keyClaims, err := k.Verify(key)
	if err != nil {
		return nil, ErrInvalidKey
	}
	out := &Request{APIKeyRole: keyClaims.Role, Claims: keyClaims}
	if bearer != "" && bearer != key {
		c, err := k.Verify(bearer)
		if err != nil {
			return out, err
		}
		out.Claims = c
		out.HasUserToken = c.Subject != ""
	}
	return out, nil
}

// BearerToken returns the token of an "Authorization: Bearer" header, or "".
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

type ctxKey struct{}

// With stores the verified request identity in the context.
func With(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// From returns the identity stored by With, or nil.
func From(ctx context.Context) *Request {
	r, _ := ctx.Value(ctxKey{}).(*Request)
	return r
}
