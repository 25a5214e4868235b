package gotrue

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// passwordGrantParams is the body of POST /token?grant_type=password.
type passwordGrantParams struct {
	Email    string  `json:"email"`
	Phone    string  `json:"phone"`
	Password *string `json:"password"`
}

func (p *passwordGrantParams) validate() error {
	p.Email = strings.TrimSpace(p.Email)
	switch {
	case p.Email != "" && p.Phone != "":
		return errf(400, "validation_failed", "Only an email address or phone number should be provided on login.")
	case p.Phone != "":
		return errPhoneLogin
	}
	if p.Email == "" || p.Password == nil {
		return errf(400, "validation_failed", "missing email or phone")
	}
	return nil
}

// refreshGrantParams is the body of POST /token?grant_type=refresh_token.
type refreshGrantParams struct {
	RefreshToken string `json:"refresh_token"`
}

func (p *refreshGrantParams) validate() error {
	if p.RefreshToken == "" {
		return errf(400, "validation_failed", "refresh_token required")
	}
	return nil
}

// pkceGrantParams is the body of POST /token?grant_type=pkce.
type pkceGrantParams struct {
	AuthCode     string `json:"auth_code"`
	CodeVerifier string `json:"code_verifier"`
}

func (p *pkceGrantParams) validate() error {
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return errf(400, "validation_failed", "invalid request: both auth code and code verifier should be non-empty")
	}
	return nil
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	switch r.URL.Query().Get("grant_type") {
	case "password":
		return s.limit("signin", s.tokenPassword)(w, r)
	case "refresh_token":
		return s.tokenRefresh(w, r)
	case "pkce":
		return s.tokenPKCE(w, r)
	case "id_token":
		return s.limit("signin", s.tokenIDToken)(w, r)
	case "web3":
		return s.limit("signin", s.tokenWeb3)(w, r)
	}
	return errf(400, "unsupported_grant_type", "unsupported_grant_type")
}

// dummyHash keeps a failed lookup as slow as a failed password check.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("casus-timing-equaliser"), 10)

func (s *Server) tokenPassword(w http.ResponseWriter, r *http.Request) error {
	var p passwordGrantParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	// Per address, only failed attempts count (RATE_LIMIT_SIGNIN per 5 minutes), so
	// guessing one account's password from many addresses is bounded too.
	addrKey := "signin-failed|" + strings.ToLower(p.Email)
	if s.limits.exhausted(addrKey) {
		return errOverRequest
	}
	failed := func() error {
		s.limits.allow(addrKey, s.d.Config.RateLimitSignIn, 5*time.Minute)
		return errInvalidCredentials
	}
	ctx := r.Context()
	u, err := s.q.UserGetByEmail(ctx, p.Email)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := s.passwordMatches(ctx, dummyHash, *p.Password); err != nil {
			return err
		}
		return failed()
	}
	if err != nil {
		return err
	}
	if ok, err := s.passwordMatches(ctx, []byte(deref(u.EncryptedPassword)), *p.Password); err != nil {
		return err
	} else if !ok {
		return failed()
	}
	if !u.EmailConfirmedAt.Valid {
		return errEmailNotConfirmed
	}
	if u.BannedUntil.Valid && u.BannedUntil.Time.After(time.Now()) {
		return errf(400, "user_banned", "User is banned")
	}
	out, err := s.issueSession(ctx, r, u, amrPassword)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// reuseInterval lets two tabs refreshing at once both succeed, as GoTrue allows.
const reuseInterval = 10 * time.Second

// tokenRefresh rotates a refresh token (GoTrue's reuse detection, see below).
func (s *Server) tokenRefresh(w http.ResponseWriter, r *http.Request) error {
	var p refreshGrantParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	ctx := r.Context()
	var out *tokenResponse
	var reused bool
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		rt, err := q.RefreshTokenGetForUpdate(ctx, &p.RefreshToken)
		if errors.Is(err, pgx.ErrNoRows) {
			return errRefreshNotFound
		}
		if err != nil {
			return err
		}
		uid, _ := parseUUID(deref(rt.UserID))
		u, err := q.UserGetByID(ctx, uid)
		if err != nil {
			return errRefreshNotFound
		}
		if u.BannedUntil.Valid && u.BannedUntil.Time.After(time.Now()) {
			return errf(400, "user_banned", "Invalid Refresh Token: User Banned")
		}
		rotate := true
		var next string
		if rt.Revoked {
			// As GoTrue: the parent of the session's current token gets that token back
			// (the client lost the answer of its last refresh); any other rotated token
			// is accepted only within the reuse interval, after that it means theft and
			// the whole session ends.
			active, aerr := q.RefreshTokenActive(ctx, rt.SessionID)
			switch {
			case aerr == nil && deref(active.Parent) == deref(rt.Token):
				next, rotate = deref(active.Token), false
			case aerr != nil && !errors.Is(aerr, pgx.ErrNoRows):
				return aerr
			case time.Since(rt.UpdatedAt.Time) > reuseInterval:
				reused = true
				return q.SessionDelete(ctx, rt.SessionID)
			}
		} else if err := q.RefreshTokenRevoke(ctx, rt.ID); err != nil {
			return err
		}
		if rotate {
			next = randomToken(16)
			if err := q.RefreshTokenCreate(ctx, dbsqlc.RefreshTokenCreateParams{Token: &next, UserID: deref(rt.UserID), Parent: rt.Token, SessionID: rt.SessionID}); err != nil {
				return err
			}
		}
		amr, err := sessionAMR(ctx, q, rt.SessionID)
		if err != nil {
			return err
		}
		body, err := s.loadUser(ctx, q, u)
		if err != nil {
			return err
		}
		out, err = s.tokenResponse(body, rt.SessionID, next, amr)
		return err
	})
	if reused {
		return errRefreshUsed
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// flowStateExpiry is how long a PKCE code can be exchanged after its link was followed
// (GoTrue's flow state expiry, 300 s).
const flowStateExpiry = 5 * time.Minute

func (s *Server) tokenPKCE(w http.ResponseWriter, r *http.Request) error {
	var p pkceGrantParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	ctx := r.Context()
	fs, err := s.q.FlowStateTake(ctx, p.AuthCode)
	if errors.Is(err, pgx.ErrNoRows) {
		return errFlowNotFound
	}
	if err != nil {
		return err
	}
	if !fs.AuthCodeIssuedAt.Valid {
		return errFlowNotFound
	}
	if time.Since(fs.AuthCodeIssuedAt.Time) > flowStateExpiry {
		return errFlowExpired
	}
	want := p.CodeVerifier
	if fs.CodeChallengeMethod == "s256" {
		sum := sha256.Sum256([]byte(p.CodeVerifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(fs.CodeChallenge)) != 1 {
		return errBadCodeVerifier
	}
	u, err := s.q.UserGetByID(ctx, fs.UserID)
	if err != nil {
		return errUserNotFound
	}
	// As GoTrue: the session of a PKCE exchange is authenticated by the flow's method.
	method := fs.AuthenticationMethod
	if strings.HasSuffix(method, "signup") {
		method = amrEmailSignup
	}
	out, err := s.issueSession(ctx, r, u, method)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}
