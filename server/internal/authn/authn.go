// Package authn turns the apikey and the bearer token of a request into a verified
// Identity (Identify, the one entry point of auth, the data API, realtime and the AI
// gateway), and verifies the tokens realtime clients send in messages (Verify).
//
// Only HS256 is accepted: the algorithm list is fixed so that "alg":"none" or an
// asymmetric-key confusion can never verify. No handlers and no database here.
package authn

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
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

// Errors of Verify and Identify; each protocol maps them to its own wire shape.
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
	ids        identityCache // Identify's verified identities
}

// NewKeys derives the anon and service-role keys from the secret. They are
// deterministic (fixed iat) so `casus keys` prints the same values every time.
func NewKeys(secret []byte) (*Keys, error) {
	k := &Keys{secret: secret}
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

// Verify checks a token that did not come in a request's headers (realtime's join and
// access_token messages) and returns its claims; a request is checked by Identify.
// Signature, algorithm and expiry are checked; a token without a role is anon.
func (k *Keys) Verify(token string) (*Claims, error) {
	c, err := k.verifyClaims(token)
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

// verifyInto checks signature, algorithm and expiry, decoding the payload into c.
func (k *Keys) verifyInto(token string, c jwt.Claims) error {
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

// verifyClaims is Verify without Raw.
func (k *Keys) verifyClaims(token string) (*Claims, error) {
	c := &Claims{}
	if err := k.verifyInto(token, c); err != nil {
		return nil, err
	}
	if c.Role == "" {
		c.Role = RoleAnon
	}
	return c, nil
}

// APIKey is the project key a request carries: the apikey header, else the apikey query
// parameter (realtime-js sends it in the WebSocket URL, where a browser cannot set a header).
func APIKey(r *http.Request) string {
	if k := r.Header.Get("apikey"); k != "" {
		return k
	}
	return r.URL.Query().Get("apikey")
}

// BearerToken returns the token of an "Authorization: Bearer" header, or "".
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
