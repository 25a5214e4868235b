package gotrue

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// WebAuthn as a second factor, as GoTrue's MFA: a factor enrolled with factor_type
// "webauthn" gets its credential from its first challenge ("create": registration
// options) and verification; later challenges are "request" (assertion options) against
// the user's verified WebAuthn credentials. The ceremonies are go-webauthn's, the library
// GoTrue uses. The relying party is SITE_URL: its host is the RP ID and its origin the
// only origin accepted (GoTrue reads both from WEBAUTHN_RP_*; the rpId and rpOrigins
// supabase-js sends are ignored by GoTrue as well).

// webAuthnParams is the "webauthn" member of a verify body.
type webAuthnParams struct {
	Type               string          `json:"type"` // "create" or "request"
	CredentialResponse json.RawMessage `json:"credential_response"`
}

// relyingParty is the WebAuthn configuration derived from SITE_URL.
func (s *Server) relyingParty() (*webauthn.WebAuthn, error) {
	u, err := url.Parse(s.d.Config.SiteURL)
	if err != nil || u.Hostname() == "" {
		return nil, errf(500, "unexpected_failure", "site url is improperly formatted")
	}
	return webauthn.New(&webauthn.Config{RPID: u.Hostname(), RPDisplayName: u.Hostname(), RPOrigins: []string{u.Scheme + "://" + u.Host}})
}

// webAuthnUser is a user as go-webauthn sees it: its id, address and the credentials of its
// verified WebAuthn factors.
type webAuthnUser struct {
	id    pgtype.UUID
	email string
	creds []webauthn.Credential
}

func (u *webAuthnUser) WebAuthnID() []byte                         { return u.id.Bytes[:] }
func (u *webAuthnUser) WebAuthnName() string                       { return u.email }
func (u *webAuthnUser) WebAuthnDisplayName() string                { return u.email }
func (u *webAuthnUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func (s *Server) loadWebAuthnUser(r *http.Request, u dbsqlc.AuthUser) (*webAuthnUser, error) {
	rows, err := s.d.Owner.Query(r.Context(), `select web_authn_credential from auth.mfa_factors
		where user_id = $1 and factor_type = 'webauthn' and status = 'verified' and web_authn_credential is not null
		order by created_at`, u.ID)
	if err != nil {
		return nil, err
	}
	creds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (webauthn.Credential, error) {
		var raw []byte
		var c webauthn.Credential
		if err := row.Scan(&raw); err != nil {
			return c, err
		}
		return c, json.Unmarshal(raw, &c)
	})
	return &webAuthnUser{id: u.ID, email: deref(u.Email), creds: creds}, err
}

// challengeWebAuthn issues registration options for an unverified factor, assertion
// options for a verified one, and keeps the ceremony's session data with the challenge.
func (s *Server) challengeWebAuthn(w http.ResponseWriter, r *http.Request, f dbsqlc.FactorOwnedRow) error {
	var p struct{}
	if err := decode(r, &p); err != nil {
		return err
	}
	rp, err := s.relyingParty()
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := s.q.UserGetByID(ctx, f.UserID)
	if err != nil {
		return err
	}
	wu, err := s.loadWebAuthnUser(r, u)
	if err != nil {
		return err
	}
	var options any
	var session *webauthn.SessionData
	kind := "create"
	if f.Status == "verified" {
		kind = "request"
		options, session, err = rp.BeginLogin(wu)
	} else {
		exclude := make([]protocol.CredentialDescriptor, 0, len(wu.creds))
		for _, c := range wu.creds {
			exclude = append(exclude, c.Descriptor())
		}
		options, session, err = rp.BeginRegistration(wu, webauthn.WithExclusions(exclude))
	}
	if err != nil {
		return errf(500, "unexpected_failure", "Failed to generate WebAuthn %s data", map[string]string{"create": "registration", "request": "login"}[kind])
	}
	data, err := json.Marshal(session)
	if err != nil {
		return err
	}
	var c dbsqlc.ChallengeCreateRow
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		var err error
		if c, err = s.q.WithTx(tx).ChallengeCreate(ctx, dbsqlc.ChallengeCreateParams{FactorID: f.ID, Ip: s.clientAddr(r)}); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "update auth.mfa_challenges set web_authn_session_data = $2 where id = $1", c.ID, data)
		return err
	})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{
		"id": uuidString(c.ID), "type": "webauthn", "expires_at": c.CreatedAt.Time.Add(mfaChallengeExpiry).Unix(),
		"webauthn": map[string]any{"type": kind, "credential_options": options},
	})
	return nil
}

var errWebAuthnFailed = errf(422, "mfa_verification_failed", "Failed to validate WebAuthn MFA response")

// verifyWebAuthn checks an authenticator's answer to the challenge: a new credential for
// an unverified factor (stored with the factor as it is verified), an assertion by one of
// the user's credentials for a verified one.
func (s *Server) verifyWebAuthn(w http.ResponseWriter, r *http.Request, u dbsqlc.AuthUser, sid pgtype.UUID, f dbsqlc.FactorOwnedRow, cid pgtype.UUID, p *webAuthnParams) error {
	switch {
	case p == nil:
		return errf(400, "validation_failed", "WebAuthn config required")
	case p.Type != "create" && p.Type != "request":
		return errf(400, "validation_failed", "WebAuthn type must be create or request")
	case len(p.CredentialResponse) == 0 || string(p.CredentialResponse) == "null":
		return errf(400, "validation_failed", "credential_response required")
	}
	rp, err := s.relyingParty()
	if err != nil {
		return err
	}
	if err := s.checkChallenge(r, f, cid); err != nil {
		return err
	}
	if (p.Type == "create") != (f.Status != "verified") {
		return errf(400, "validation_failed", "WebAuthn type must be create for an unverified factor and request for a verified one")
	}
	ctx := r.Context()
	var data []byte
	if err := s.d.Owner.QueryRow(ctx, "select web_authn_session_data from auth.mfa_challenges where id = $1", cid).Scan(&data); err != nil {
		return err
	}
	var session webauthn.SessionData
	if len(data) == 0 || json.Unmarshal(data, &session) != nil {
		return errChallengeGone
	}
	wu, err := s.loadWebAuthnUser(r, u)
	if err != nil {
		return err
	}
	var cred *webauthn.Credential
	if p.Type == "create" {
		parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(p.CredentialResponse))
		if err != nil {
			return errf(400, "validation_failed", "Invalid credential_response")
		}
		if cred, err = rp.CreateCredential(wu, session, parsed); err != nil {
			return errWebAuthnFailed
		}
	} else {
		parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(p.CredentialResponse))
		if err != nil {
			return errf(400, "validation_failed", "Invalid credential_response")
		}
		if cred, err = rp.ValidateLogin(wu, session, parsed); err != nil {
			return errWebAuthnFailed
		}
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	var aaguid *uuid.UUID
	if a, err := uuid.FromBytes(cred.Authenticator.AAGUID); err == nil && a != uuid.Nil {
		aaguid = &a
	}
	if p.Type == "request" {
		// The credential as used now (its signature counter), on the factor that holds it.
		if _, err := s.d.Owner.Exec(ctx, `update auth.mfa_factors set web_authn_credential = $2, updated_at = now()
			where user_id = $1 and factor_type = 'webauthn' and web_authn_credential->>'id' = $3`,
			u.ID, stored, jsonBase64(cred.ID)); err != nil {
			return err
		}
		return s.passFactor(w, r, u, sid, f, cid, amrWebAuthn, nil)
	}
	return s.passFactor(w, r, u, sid, f, cid, amrWebAuthn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "update auth.mfa_factors set web_authn_credential = $2, web_authn_aaguid = $3, updated_at = now() where id = $1",
			f.ID, stored, aaguid)
		return err
	})
}

// jsonBase64 is how encoding/json writes a []byte (the credential id inside the stored JSON).
func jsonBase64(b []byte) string {
	out, _ := json.Marshal(b)
	var s string
	_ = json.Unmarshal(out, &s)
	return s
}
