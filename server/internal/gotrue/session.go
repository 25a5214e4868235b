package gotrue

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/authn"
	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// loadUser reads the user object of a user id; q is the pool or the caller's
// transaction (taking a second connection inside a transaction would deadlock a busy pool).
func (s *Server) loadUser(ctx context.Context, q *dbsqlc.Queries, u dbsqlc.AuthUser) (userRow, error) {
	ids, err := q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return userRow{}, err
	}
	row := userFromRow(u, ids)
	return row, withFactors(ctx, q, &row)
}

// respondUser answers the user object of u.
func (s *Server) respondUser(ctx context.Context, w http.ResponseWriter, u dbsqlc.AuthUser) error {
	body, err := s.loadUser(ctx, s.q, u)
	if err != nil {
		return err
	}
	writeUser(w, &body)
	return nil
}

// tokenResponse is GoTrue's answer to a sign-in, a refresh and a verified link.
type tokenResponse struct {
	AccessToken  string  `json:"access_token"`
	TokenType    string  `json:"token_type"`
	ExpiresIn    int     `json:"expires_in"`
	ExpiresAt    int64   `json:"expires_at"`
	RefreshToken string  `json:"refresh_token"`
	User         userRow `json:"user"`
}

// issueSession starts a session and returns GoTrue's token response.
func (s *Server) issueSession(ctx context.Context, r *http.Request, u dbsqlc.AuthUser, method string) (*tokenResponse, error) {
	ua := r.UserAgent()
	var ip *netip.Addr
	if a, err := netip.ParseAddr(httpx.ClientIP(r, s.d.Config.TrustedProxies)); err == nil {
		ip = &a
	}
	// One statement, one round trip: sign-in throughput should be bound by bcrypt alone.
	refresh := randomToken(16)
	rows, err := s.q.SessionStart(ctx, dbsqlc.SessionStartParams{UserID: u.ID, UserAgent: &ua, Ip: ip, Token: &refresh, Method: method})
	if err == nil && len(rows) == 0 {
		err = pgx.ErrNoRows
	}
	if err != nil {
		return nil, err
	}
	row := rows[0]
	u.LastSignInAt, u.UpdatedAt = row.LastSignInAt, row.UpdatedAt
	user := userFromRow(u, nil)
	for _, r := range rows {
		if r.IdentityID.Valid {
			user.Identities = append(user.Identities, identityRow{ID: r.IdentityID, ProviderID: deref(r.IdentityProviderID),
				UserID: u.ID, Data: r.IdentityData, Provider: deref(r.IdentityProvider), LastSignInAt: r.IdentityLastSignInAt,
				CreatedAt: r.IdentityCreatedAt, UpdatedAt: r.IdentityUpdatedAt, Email: deref(r.IdentityEmail)})
		}
	}
	sortIdentities(user.Identities)
	if row.FactorsJson != "" { // MFA (factors.go)
		user.Factors = []byte(row.FactorsJson)
	}
	amr := []authn.AMREntry{{Method: method, Timestamp: row.LastSignInAt.Time.Unix()}}
	return s.tokenResponse(user, row.ID, refresh, amr)
}

// Authentication methods of the amr claim, GoTrue's names: a password sign-in (and a
// sign-up that confirms at once), an e-mailed link or code followed in the implicit flow,
// and the methods a PKCE flow records, which its code exchange reports.
const (
	amrPassword    = "password"
	amrAnonymous   = "anonymous"
	amrOTP         = "otp"
	amrEmailSignup = "email/signup"
	amrRecovery    = "recovery"
	amrMagicLink   = "magiclink"
	amrInvite      = "invite"
	amrEmailChange = "email_change"
)

// sessionAMR is the session's amr claim as stored at sign-in, most recent first: a
// refreshed token keeps the factors (and times) of the original authentication.
func sessionAMR(ctx context.Context, q *dbsqlc.Queries, sid pgtype.UUID) ([]authn.AMREntry, error) {
	rows, err := q.SessionAMR(ctx, sid)
	if err != nil {
		return nil, err
	}
	amr := make([]authn.AMREntry, 0, len(rows))
	for _, r := range rows {
		amr = append(amr, authn.AMREntry{Method: r.AuthenticationMethod, Timestamp: r.UpdatedAt.Time.Unix()})
	}
	return amr, nil
}

// tokenResponse signs an access token for the session and builds the response body.
func (s *Server) tokenResponse(u userRow, sid pgtype.UUID, refresh string, amr []authn.AMREntry) (*tokenResponse, error) {
	now := time.Now()
	exp := now.Add(s.d.Config.JWTExpiry)
	var appMeta, userMeta map[string]any
	_ = json.Unmarshal(u.AppMetadata, &appMeta)
	_ = json.Unmarshal(u.UserMetadata, &userMeta)
	c := &authn.Claims{
		Role: authn.RoleAuthenticated, Email: u.Email, SessionID: uuidString(sid),
		AppMetadata: appMeta, UserMetadata: userMeta, AAL: aalOf(amr), AMR: amr, IsAnonymous: u.IsAnonymous,
	}
	c.Subject = uuidString(u.ID)
	c.Audience = jwt.ClaimStrings{authn.RoleAuthenticated}
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(exp)
	c.Issuer = s.d.Config.ExternalURL() + "/auth/v1"
	tok, err := s.d.Keys.Sign(c)
	if err != nil {
		return nil, err
	}
	return &tokenResponse{AccessToken: tok, TokenType: "bearer", ExpiresIn: int(s.d.Config.JWTExpiry.Seconds()),
		ExpiresAt: exp.Unix(), RefreshToken: refresh, User: u}, nil
}

// userToken checks the bearer token of a user request (through authn.Identify, which
// has verified it already for the apikey check) and returns its user and session ids.
func (s *Server) userToken(r *http.Request) (pgtype.UUID, pgtype.UUID, error) {
	id := s.d.Keys.Identify(r)
	switch {
	case !id.Bearer:
		return pgtype.UUID{}, pgtype.UUID{}, errNoAuth
	case errors.Is(id.BearerErr, authn.ErrExpiredToken):
		return pgtype.UUID{}, pgtype.UUID{}, errExpiredJWT
	case id.BearerErr != nil:
		return pgtype.UUID{}, pgtype.UUID{}, errBadJWT
	}
	uid, err1 := parseUUID(id.Claims.Subject)
	sid, err2 := parseUUID(id.Claims.SessionID)
	if err1 != nil || err2 != nil || id.Claims.Role != authn.RoleAuthenticated {
		return pgtype.UUID{}, pgtype.UUID{}, errBadJWT
	}
	return uid, sid, nil
}

// currentUser verifies the bearer token and loads its user through its live session; it
// returns the session id too.
func (s *Server) currentUser(r *http.Request) (dbsqlc.AuthUser, pgtype.UUID, error) {
	uid, sid, err := s.userToken(r)
	if err != nil {
		return dbsqlc.AuthUser{}, sid, err
	}
	u, err := s.q.SessionUser(r.Context(), dbsqlc.SessionUserParams{SessionID: sid, UserID: uid})
	if errors.Is(err, pgx.ErrNoRows) {
		return dbsqlc.AuthUser{}, sid, s.noSessionError(r.Context(), uid)
	}
	return u, sid, err
}

// noSessionError tells, as GoTrue does, a token whose user is gone (403 user_not_found)
// from one whose session ended (403 session_not_found). Only failures pay for the query.
func (s *Server) noSessionError(ctx context.Context, uid pgtype.UUID) error {
	_, err := s.q.UserGetByID(ctx, uid)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return errJWTUserNotFound
	case err != nil:
		return err
	}
	return errSessionNotFound
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ts(t pgtype.Timestamptz) any {
	if !t.Valid {
		return nil
	}
	return t.Time.UTC().Format(time.RFC3339Nano)
}

func uuidString(u pgtype.UUID) string {
	if !u.Valid {
		return ""
	}
	b := u.Bytes
	return hex.EncodeToString(b[0:4]) + "-" + hex.EncodeToString(b[4:6]) + "-" + hex.EncodeToString(b[6:8]) + "-" + hex.EncodeToString(b[8:10]) + "-" + hex.EncodeToString(b[10:16])
}

func parseUUID(s string) (pgtype.UUID, error) {
	var u pgtype.UUID
	err := u.Scan(s)
	return u, err
}

// now is the current time at PostgreSQL's precision (microseconds), so a time made here
// prints like one read from the database.
func now() pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: time.Now().Truncate(time.Microsecond), Valid: true}
}
