package gotrue

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"casus/server/internal/authn"
	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// Multi-factor authentication with TOTP and WebAuthn (webauthn.go), as GoTrue's /factors
// endpoints: enrol a factor (TOTP: secret, QR code, otpauth URI), challenge it, verify a
// code or an authenticator's answer (which raises the session to aal2 and records "totp"
// or "mfa/webauthn" in its amr), and unenrol it. Phone factors are answered as a GoTrue
// with them disabled answers them.

// GoTrue's defaults (GOTRUE_MFA_*).
const (
	mfaChallengeExpiry    = 300 * time.Second // MFA_CHALLENGE_EXPIRY_DURATION
	mfaFactorExpiry       = 300 * time.Second // MFA_FACTOR_EXPIRY_DURATION: an unverified factor never challenged
	mfaMaxEnrolledFactors = 10
	mfaMaxVerifiedFactors = 10
	amrTOTP               = "totp"
	amrWebAuthn           = "mfa/webauthn"
	aal1                  = "aal1"
	aal2                  = "aal2"
)

var (
	errFactorNotFound  = errf(404, "mfa_factor_not_found", "Factor not found")
	errFactorIDInvalid = errf(404, "validation_failed", "factor_id must be an UUID")
	errTooManyFactors  = errf(422, "too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue")
	errChallengeGone   = errf(422, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
	errChallengeIP     = errf(422, "mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")
	errTOTPInvalid     = errf(422, "mfa_verification_failed", "Invalid TOTP code entered")
)

// factorRoutes registers /factors under /auth/v1 with the service's middleware h.
func (s *Server) factorRoutes(mux *http.ServeMux, h func(httpx.HandlerFunc) http.Handler) {
	mux.Handle("POST /auth/v1/factors", h(s.enrollFactor))
	mux.Handle("POST /auth/v1/factors/{id}/challenge", h(s.limit("mfa_challenge", s.challengeFactor)))
	mux.Handle("POST /auth/v1/factors/{id}/verify", h(s.limit("mfa_verify", s.verifyFactor)))
	mux.Handle("DELETE /auth/v1/factors/{id}", h(s.unenrollFactor))
}

// aalOf is the assurance level GoTrue derives from a session's amr claims: aal2 once a
// second factor was verified in the session.
func aalOf(amr []authn.AMREntry) string {
	for _, a := range amr {
		if a.Method == amrTOTP || a.Method == "mfa/phone" || a.Method == amrWebAuthn {
			return aal2
		}
	}
	return aal1
}

type enrollParams struct {
	FactorType   string `json:"factor_type"`
	FriendlyName string `json:"friendly_name"`
	Issuer       string `json:"issuer"`
	Phone        string `json:"phone"`
}

func (p *enrollParams) validate() error {
	switch p.FactorType {
	case "totp", "webauthn":
		return nil
	case "phone":
		return errf(422, "mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone")
	}
	return errf(400, "validation_failed", "factor_type needs to be totp, phone, or webauthn")
}

// enrollFactor creates an unverified TOTP factor and returns its secret once.
func (s *Server) enrollFactor(w http.ResponseWriter, r *http.Request) error {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return err
	}
	var p enrollParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	issuer := p.Issuer
	if issuer == "" {
		su, err := url.ParseRequestURI(s.d.Config.SiteURL)
		if err != nil {
			return errf(500, "unexpected_failure", "site url is improperly formatted")
		}
		issuer = su.Host
	}
	ctx := r.Context()
	if err := s.q.FactorsDeleteExpiredUnverified(ctx, dbsqlc.FactorsDeleteExpiredUnverifiedParams{UserID: u.ID, ExpirySeconds: mfaFactorExpiry.Seconds()}); err != nil {
		return err
	}
	factors, err := s.q.FactorsByUser(ctx, u.ID)
	if err != nil {
		return err
	}
	verified := 0
	for _, f := range factors {
		if f.FriendlyName == p.FriendlyName {
			return errf(422, "mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
		}
		if f.Status == "verified" {
			verified++
		}
	}
	if len(factors) >= mfaMaxEnrolledFactors || verified >= mfaMaxVerifiedFactors {
		return errTooManyFactors
	}
	if verified > 0 {
		aal, err := s.q.SessionAAL(ctx, sid)
		if err != nil {
			return err
		}
		if aal != aal2 {
			return errf(403, "insufficient_aal", "AAL2 required to enroll a new factor")
		}
	}
	id := fakeUUID()
	var name *string
	if p.FriendlyName != "" {
		name = &p.FriendlyName
	}
	if p.FactorType == "webauthn" {
		// The credential comes with the first verification (webauthn.go).
		err := s.q.FactorCreate(ctx, dbsqlc.FactorCreateParams{ID: id, UserID: u.ID, FriendlyName: name, FactorType: "webauthn"})
		if isUniqueViolation(err) {
			return errf(422, "mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
		}
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, 200, map[string]any{"id": uuidString(id), "type": "webauthn", "friendly_name": p.FriendlyName})
		return nil
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: deref(u.Email)})
	if err != nil {
		return errf(500, "unexpected_failure", "Error generating QR Code")
	}
	svg, err := qrSVG(key.String())
	if err != nil {
		return errf(500, "unexpected_failure", "Error generating QR Code")
	}
	secret := key.Secret()
	stored, err := s.sealSecret(uuidString(id), secret) // dbcrypt.go
	if err != nil {
		return err
	}
	err = s.q.FactorCreate(ctx, dbsqlc.FactorCreateParams{ID: id, UserID: u.ID, FriendlyName: name, FactorType: "totp", Secret: &stored})
	if isUniqueViolation(err) { // the same name enrolled concurrently
		return errf(422, "mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{
		"id": uuidString(id), "type": "totp", "friendly_name": p.FriendlyName,
		// Raw SVG, as GoTrue sends it; supabase-js turns it into a data: URI.
		"totp": map[string]string{"qr_code": svg, "secret": secret, "uri": key.URL()},
	})
	return nil
}

// ownedFactor loads the {id} factor of the signed-in user.
func (s *Server) ownedFactor(r *http.Request) (dbsqlc.AuthUser, pgtype.UUID, dbsqlc.FactorOwnedRow, error) {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return u, sid, dbsqlc.FactorOwnedRow{}, err
	}
	fid, err := parseUUID(r.PathValue("id"))
	if err != nil {
		return u, sid, dbsqlc.FactorOwnedRow{}, errFactorIDInvalid
	}
	f, err := s.q.FactorOwned(r.Context(), dbsqlc.FactorOwnedParams{ID: fid, UserID: u.ID})
	if errors.Is(err, pgx.ErrNoRows) {
		return u, sid, f, errFactorNotFound
	}
	return u, sid, f, err
}

// clientAddr is the caller's address as challenges record it.
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	a, err := netip.ParseAddr(httpx.ClientIP(r, s.d.Config.TrustedProxies))
	if err != nil {
		return netip.IPv4Unspecified()
	}
	return a.Unmap()
}

func (s *Server) challengeFactor(w http.ResponseWriter, r *http.Request) error {
	_, _, f, err := s.ownedFactor(r)
	if err != nil {
		return err
	}
	switch f.FactorType {
	case "webauthn":
		return s.challengeWebAuthn(w, r, f)
	case "phone":
		return errf(422, "mfa_phone_verify_not_enabled", "MFA verification is disabled for Phone")
	}
	c, err := s.q.ChallengeCreate(r.Context(), dbsqlc.ChallengeCreateParams{FactorID: f.ID, Ip: s.clientAddr(r)})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{
		"id": uuidString(c.ID), "type": f.FactorType, "expires_at": c.CreatedAt.Time.Add(mfaChallengeExpiry).Unix(),
	})
	return nil
}

type verifyFactorParams struct {
	ChallengeID string          `json:"challenge_id"`
	Code        string          `json:"code"`
	WebAuthn    *webAuthnParams `json:"webauthn"`
}

func (p *verifyFactorParams) validate(factorType string) (pgtype.UUID, error) {
	if p.Code == "" && factorType != "webauthn" {
		return pgtype.UUID{}, errf(400, "validation_failed", "Code needs to be non-empty")
	}
	id, err := parseUUID(p.ChallengeID)
	if err != nil {
		return id, errf(400, "bad_json", "Could not parse request body as JSON: invalid challenge_id")
	}
	return id, nil
}

// verifyFactor checks a TOTP code against a challenge. On success the factor is verified
// (if it was not yet), the session gets "totp" in its amr and aal2, its refresh token is
// rotated, every other session of the user below aal2 ends, and a new session body is
// returned, as GoTrue does.
func (s *Server) verifyFactor(w http.ResponseWriter, r *http.Request) error {
	u, sid, f, err := s.ownedFactor(r)
	if err != nil {
		return err
	}
	var p verifyFactorParams
	if err := decode(r, &p); err != nil {
		return err
	}
	cid, err := p.validate(f.FactorType)
	if err != nil {
		return err
	}
	if f.FactorType == "webauthn" {
		return s.verifyWebAuthn(w, r, u, sid, f, cid, p.WebAuthn)
	}
	ctx := r.Context()
	if err := s.checkChallenge(r, f, cid); err != nil {
		return err
	}
	secret, stale, err := s.openSecret(uuidString(f.ID), deref(f.Secret))
	if err != nil {
		return err
	}
	ok, _ := totp.ValidateCustom(strings.TrimSpace(p.Code), secret, time.Now().UTC(), totp.ValidateOpts{
		Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
	})
	if !ok {
		return errTOTPInvalid
	}
	if stale { // rotation: store it under the current key (or plain, encryption off)
		resealed, err := s.sealSecret(uuidString(f.ID), secret)
		if err != nil {
			return err
		}
		if _, err := s.d.Owner.Exec(ctx, "update auth.mfa_factors set secret = $2 where id = $1", f.ID, resealed); err != nil {
			return err
		}
	}
	return s.passFactor(w, r, u, sid, f, cid, amrTOTP, nil)
}

// checkChallenge finds the factor's challenge and refuses it as GoTrue's validateChallenge
// does: used, asked from another address, or expired (then deleted).
func (s *Server) checkChallenge(r *http.Request, f dbsqlc.FactorOwnedRow, cid pgtype.UUID) error {
	ctx := r.Context()
	ch, err := s.q.ChallengeForUpdate(ctx, dbsqlc.ChallengeForUpdateParams{ID: cid, FactorID: f.ID})
	if errors.Is(err, pgx.ErrNoRows) {
		return errChallengeGone
	}
	if err != nil {
		return err
	}
	if ip, perr := netip.ParseAddr(ch.Ip); ch.VerifiedAt.Valid || perr != nil || ip.Unmap() != s.clientAddr(r) {
		return errChallengeIP
	}
	if time.Since(ch.CreatedAt.Time) > mfaChallengeExpiry {
		if err := s.q.ChallengeDelete(ctx, ch.ID); err != nil {
			return err
		}
		return errf(422, "mfa_challenge_expired", "MFA challenge %s has expired, verify against another challenge or create a new challenge.", uuidString(ch.ID))
	}
	return nil
}

// passFactor records a verified challenge: the factor is verified (if it was not yet,
// with onVerify's writes), the session gets method in its amr and aal2, its refresh
// token is rotated, every other session of the user below aal2 ends, the user's other
// unverified factors of the type go, and a new session body is the answer, as GoTrue does.
func (s *Server) passFactor(w http.ResponseWriter, r *http.Request, u dbsqlc.AuthUser, sid pgtype.UUID, f dbsqlc.FactorOwnedRow,
	cid pgtype.UUID, method string, onVerify func(pgx.Tx) error) error {
	ctx := r.Context()
	var out *tokenResponse
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		// A challenge is good for one verification: the second of two racing requests
		// finds it verified.
		ch, err := q.ChallengeForUpdate(ctx, dbsqlc.ChallengeForUpdateParams{ID: cid, FactorID: f.ID})
		if errors.Is(err, pgx.ErrNoRows) {
			return errChallengeGone
		}
		if err != nil {
			return err
		}
		if ch.VerifiedAt.Valid {
			return errChallengeIP
		}
		if err := q.ChallengeVerify(ctx, ch.ID); err != nil {
			return err
		}
		if err := q.FactorMarkVerified(ctx, f.ID); err != nil {
			return err
		}
		if onVerify != nil {
			if err := onVerify(tx); err != nil {
				return err
			}
		}
		if err := q.SessionAddAMR(ctx, dbsqlc.SessionAddAMRParams{SessionID: sid, Method: method}); err != nil {
			return err
		}
		if err := q.SessionSetAAL(ctx, dbsqlc.SessionSetAALParams{ID: sid, Aal: aal2, FactorID: f.ID}); err != nil {
			return err
		}
		if err := q.SessionsDeleteBelowAAL2(ctx, u.ID); err != nil {
			return err
		}
		if err := q.FactorsDeleteUnverified(ctx, dbsqlc.FactorsDeleteUnverifiedParams{UserID: u.ID, FactorType: f.FactorType}); err != nil {
			return err
		}
		next, err := rotateSessionToken(ctx, q, sid, uuidString(u.ID))
		if err != nil {
			return err
		}
		amr, err := sessionAMR(ctx, q, sid)
		if err != nil {
			return err
		}
		fresh, err := q.UserGetByID(ctx, u.ID)
		if err != nil {
			return err
		}
		body, err := s.loadUser(ctx, q, fresh) // with its factors
		if err != nil {
			return err
		}
		out, err = s.tokenResponse(body, sid, next, amr)
		return err
	})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// rotateSessionToken replaces every refresh token of the session with a new one, as
// GoTrue's verify does (it moves the session's token counter past the current token): a
// refresh token obtained with the password alone, whoever holds it, cannot lead to the
// aal2 session, not even through the reuse rules of the refresh grant.
func rotateSessionToken(ctx context.Context, q *dbsqlc.Queries, sid pgtype.UUID, uid string) (string, error) {
	if err := q.RefreshTokensDeleteForSession(ctx, sid); err != nil {
		return "", err
	}
	next := randomToken(16)
	return next, q.RefreshTokenCreate(ctx, dbsqlc.RefreshTokenCreateParams{Token: &next, UserID: uid, SessionID: sid})
}

// unenrollFactor deletes a factor; a verified one only from an aal2 session. Sessions it
// raised fall back to aal1.
func (s *Server) unenrollFactor(w http.ResponseWriter, r *http.Request) error {
	_, sid, f, err := s.ownedFactor(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if f.Status == "verified" {
		aal, err := s.q.SessionAAL(ctx, sid)
		if err != nil {
			return err
		}
		if aal != aal2 {
			return errf(422, "insufficient_aal", "AAL2 required to unenroll verified factor")
		}
	}
	if err := s.q.FactorDelete(ctx, f.ID); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{"id": uuidString(f.ID)})
	return nil
}

// withFactors adds the user's factors to a user object (GoTrue lists them there;
// supabase-js's getAuthenticatorAssuranceLevel reads them from the session's user).
func withFactors(ctx context.Context, q *dbsqlc.Queries, u *userRow) error {
	f, err := q.FactorsJSON(ctx, u.ID)
	if err != nil {
		return err
	}
	if f != "" {
		u.Factors = []byte(f)
	}
	return nil
}
