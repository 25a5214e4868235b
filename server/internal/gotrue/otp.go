package gotrue

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db/dbsqlc"
)

// emailParams is the body of the endpoints that mail a link: POST /otp (magic link) and
// POST /recover.
type emailParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Data                map[string]any `json:"data"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
	CreateUser          *bool          `json:"create_user"`
}

// validate checks the address (missing is the endpoint's message for none) and the PKCE
// challenge.
func (p *emailParams) validate(missing string) error {
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return errf(400, "validation_failed", "%s", missing)
	}
	if p.Phone != "" {
		return errEmailOrPhoneOTP
	}
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	_, _, err := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	return err
}

// emailRequest reads the body of a mail-sending endpoint: a valid address and an
// allowed redirect.
func (s *Server) emailRequest(r *http.Request, missing string) (emailParams, string, error) {
	var p emailParams
	if err := decode(r, &p); err != nil {
		return p, "", err
	}
	if err := p.validate(missing); err != nil {
		return p, "", err
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	return p, redirect, err
}

// otp sends a magic link, creating the account unless create_user is false. With
// create_user false an unknown address gets the answer of a known one.
func (s *Server) otp(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Only an email address or phone number should be provided")
	if p.Email == "" && p.Phone != "" {
		return errPhoneOTP // signInWithOtp({phone}): GoTrue without an SMS provider
	}
	if err != nil {
		return err
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	if p.CreateUser == nil || *p.CreateUser {
		if err := s.ensureMagicLinkUser(r.Context(), p.Email, meta); err != nil {
			return err
		}
	}
	return s.mailLink(w, p, linkJob{kind: linkMagic, redirect: redirect})
}

// ensureMagicLinkUser creates a passwordless account for a magic link when the address
// has none.
func (s *Server) ensureMagicLinkUser(ctx context.Context, email string, meta []byte) error {
	_, err := s.q.UserGetByEmail(ctx, email)
	if err == nil {
		// Known: the metadata is judged as for a new account, so a refusal tells nothing.
		_, err = s.dryRunCreate(ctx, meta)
		return err
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	_, err = s.createUser(ctx, s.q, dbsqlc.UserCreateParams{Email: email, UserMeta: meta, AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}, false)
	if isUniqueViolation(err) {
		return nil // created concurrently
	}
	return err
}

// resendParams is the body of POST /resend.
type resendParams struct {
	Type  string `json:"type"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

func (p *resendParams) validate() error {
	switch {
	case p.Type == "sms" && p.Phone == "":
		return errf(400, "validation_failed", "Type provided requires a phone number")
	case (p.Type == "sms" || p.Type == "phone_change") && p.Email != "" && p.Phone != "":
		return errf(400, "validation_failed", "Only an email address or phone number should be provided.")
	case p.Type == "sms" || p.Type == "phone_change":
		return errPhoneResend
	case p.Type != "signup":
		return errf(400, "validation_failed", "Missing one of these types: signup, email_change, sms, phone_change")
	}
	p.Email = strings.TrimSpace(p.Email)
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	return nil
}

// resend mails a new confirmation link to an unconfirmed address.
func (s *Server) resend(w http.ResponseWriter, r *http.Request) error {
	var p resendParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if err != nil {
		return err
	}
	return s.mailLink(w, emailParams{Email: p.Email}, linkJob{kind: linkSignup, redirect: redirect, unconfirmedOnly: true})
}
