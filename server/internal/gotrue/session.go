package gotrue

import (
	"bytes"
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

// userJSON is GoTrue's user object; q is the pool or the caller's transaction (taking a
// second connection inside a transaction would deadlock a busy pool).
func (s *Server) userJSON(ctx context.Context, q *dbsqlc.Queries, u dbsqlc.AuthUser) userBody {
	body := userObject(u, s.identities(ctx, q, u))
	if f, err := q.FactorsJSON(ctx, u.ID); err == nil && f != "" {
		body.Factors = []byte(f)
	}
	return body
}

// identities lists the user's identities in GoTrue's shape.
func (s *Server) identities(ctx context.Context, q *dbsqlc.Queries, u dbsqlc.AuthUser) []any {
	identities := []any{}
	if ids, err := q.IdentitiesByUser(ctx, u.ID); err == nil {
		for _, i := range ids {
			var data map[string]any
			_ = json.Unmarshal(i.IdentityData, &data)
			identities = append(identities, map[string]any{
				"identity_id": uuidString(i.ID), "id": i.ProviderID, "user_id": uuidString(u.ID), "identity_data": data,
				"provider": i.Provider, "last_sign_in_at": ts(i.LastSignInAt), "created_at": ts(i.CreatedAt),
				"updated_at": ts(i.UpdatedAt), "email": deref(i.Email),
			})
		}
	}
	return identities
}

// userBody is GoTrue's user object. Metadata is passed through as the stored JSON.
type userBody struct {
	ID                 string          `json:"id"`
	Aud                string          `json:"aud"`
	Role               string          `json:"role"`
	Email              string          `json:"email"`
	Phone              string          `json:"phone"`
	EmailConfirmedAt   any             `json:"email_confirmed_at"`
	ConfirmedAt        any             `json:"confirmed_at"`
	ConfirmationSentAt any             `json:"confirmation_sent_at"`
	RecoverySentAt     any             `json:"recovery_sent_at"`
	LastSignInAt       any             `json:"last_sign_in_at"`
	AppMetadata        json.RawMessage `json:"app_metadata"`
	UserMetadata       json.RawMessage `json:"user_metadata"`
	Factors            json.RawMessage `json:"factors,omitempty"` // MFA factors (factors.go), omitted when none
	Identities         any             `json:"identities"`
	CreatedAt          any             `json:"created_at"`
	UpdatedAt          any             `json:"updated_at"`
	IsAnonymous        bool            `json:"is_anonymous"`
}

// userObject assembles the user JSON from the row and its identities.
func userObject(u dbsqlc.AuthUser, identities any) userBody {
	return userBody{
		ID: uuidString(u.ID), Aud: "authenticated", Role: "authenticated", Email: deref(u.Email),
		EmailConfirmedAt: ts(u.EmailConfirmedAt), ConfirmedAt: ts(u.ConfirmedAt),
		ConfirmationSentAt: ts(u.ConfirmationSentAt), RecoverySentAt: ts(u.RecoverySentAt),
		LastSignInAt: ts(u.LastSignInAt), AppMetadata: jsonObject(u.RawAppMetaData),
		UserMetadata: jsonObject(u.RawUserMetaData), Identities: identities,
		CreatedAt: ts(u.CreatedAt), UpdatedAt: ts(u.UpdatedAt),
	}
}

// jsonObject passes stored JSON through, with {} for a missing or non-object value.
func jsonObject(b []byte) json.RawMessage {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(t)
}

// issueSession starts a session and returns GoTrue's token response.
func (s *Server) issueSession(ctx context.Context, r *http.Request, u dbsqlc.AuthUser, method string) (map[string]any, error) {
	ua := r.UserAgent()
	var ip *netip.Addr
	if a, err := netip.ParseAddr(httpx.ClientIP(r, s.d.Config.TrustedProxies)); err == nil {
		ip = &a
	}
	// One statement, one round trip: sign-in throughput should be bound by bcrypt alone.
	refresh := randomToken(16)
	row, err := s.q.SessionStart(ctx, dbsqlc.SessionStartParams{UserID: u.ID, UserAgent: &ua, Ip: ip, Token: &refresh, Method: method})
	if err != nil {
		return nil, err
	}
	u.LastSignInAt = row.LastSignInAt
	amr := []authn.AMREntry{{Method: method, Timestamp: row.LastSignInAt.Time.Unix()}}
	out, err := s.tokenResponse(u, row.ID, refresh, amr, json.RawMessage(row.IdentitiesJson))
	if err != nil {
		return nil, err
	}
	return out, attachFactors(ctx, s.q, out, u.ID)
}

// Authentication methods of the amr claim, GoTrue's names: a password sign-in (and a
// sign-up that confirms at once), an e-mailed link or code followed in the implicit flow,
// and the methods a PKCE flow records, which its code exchange reports.
const (
	amrPassword    = "password"
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
func (s *Server) tokenResponse(u dbsqlc.AuthUser, sid pgtype.UUID, refresh string, amr []authn.AMREntry, identities any) (map[string]any, error) {
	now := time.Now()
	exp := now.Add(s.d.Config.JWTExpiry)
	var appMeta, userMeta map[string]any
	_ = json.Unmarshal(u.RawAppMetaData, &appMeta)
	_ = json.Unmarshal(u.RawUserMetaData, &userMeta)
	c := &authn.Claims{
		Role: authn.RoleAuthenticated, Email: deref(u.Email), SessionID: uuidString(sid),
		AppMetadata: appMeta, UserMetadata: userMeta, AAL: aalOf(amr), AMR: amr,
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
	return map[string]any{
		"access_token": tok, "token_type": "bearer", "expires_in": int(s.d.Config.JWTExpiry.Seconds()),
		"expires_at": exp.Unix(), "refresh_token": refresh, "user": userObject(u, identities),
	}, nil
}

// verifyUserToken checks the bearer token of a user request and returns its user and
// session ids. authn.VerifySession decodes only the claims needed here (not the metadata
// a token carries), which keeps GET /user cheap.
func (s *Server) verifyUserToken(r *http.Request) (pgtype.UUID, pgtype.UUID, error) {
	tok := authn.BearerToken(r)
	if tok == "" {
		return pgtype.UUID{}, pgtype.UUID{}, errNoAuth
	}
	c, err := s.d.Keys.VerifySession(tok)
	if err != nil {
		if errors.Is(err, authn.ErrExpiredToken) {
			return pgtype.UUID{}, pgtype.UUID{}, errExpiredJWT
		}
		return pgtype.UUID{}, pgtype.UUID{}, errBadJWT
	}
	uid, err1 := parseUUID(c.Subject)
	sid, err2 := parseUUID(c.SessionID)
	if err1 != nil || err2 != nil || c.Role != authn.RoleAuthenticated {
		return pgtype.UUID{}, pgtype.UUID{}, errBadJWT
	}
	return uid, sid, nil
}

// currentUser verifies the bearer token and loads its user through its live session; it
// returns the session id too.
func (s *Server) currentUser(r *http.Request) (dbsqlc.AuthUser, pgtype.UUID, error) {
	uid, sid, err := s.verifyUserToken(r)
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
