package gotrue

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// generateLinkParams is the body of POST /admin/generate_link (supabase-js generateLink).
type generateLinkParams struct {
	Type       string         `json:"type"`
	Email      string         `json:"email"`
	NewEmail   string         `json:"new_email"`
	Password   string         `json:"password"`
	Data       map[string]any `json:"data"`
	RedirectTo string         `json:"redirect_to"`
}

// validate checks the address as GoTrue does and returns the link kind of the type.
func (p *generateLinkParams) validate() (linkKind, error) {
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return linkKind{}, errf(400, "validation_failed", "An email address is required")
	}
	if !validEmail(p.Email) {
		return linkKind{}, errInvalidEmail
	}
	switch p.Type {
	case "signup":
		return linkSignup, nil
	case "invite":
		return linkInvite, nil
	case "magiclink":
		return linkMagic, nil
	case "recovery":
		return linkRecovery, nil
	case "email_change_current":
		return linkEmailChangeCurrent, nil
	case "email_change_new":
		return linkEmailChangeNew, nil
	}
	return linkKind{}, errf(400, "validation_failed", "Invalid email action link type requested: %v", p.Type)
}

// generateLinkResponse is GoTrue's answer: the user object with the link's properties
// beside its fields, which supabase-js splits into data.user and data.properties.
type generateLinkResponse struct {
	User             userRow `json:"-"`
	ActionLink       string  `json:"action_link"`
	EmailOTP         string  `json:"email_otp"`
	HashedToken      string  `json:"hashed_token"`
	VerificationType string  `json:"verification_type"`
	RedirectTo       string  `json:"redirect_to"`
}

// MarshalJSON writes the user object's fields, then the link's.
func (g generateLinkResponse) MarshalJSON() ([]byte, error) {
	type props generateLinkResponse // without this method
	p, err := json.Marshal(props(g))
	if err != nil {
		return nil, err
	}
	b := appendUser(nil, &g.User)
	b = append(b[:len(b)-1], ',')
	return append(b, p[1:]...), nil
}

// adminGenerateLink makes a sign-up, invite, magic-link or recovery link without mailing
// it, creating the account where GoTrue does (sign-up, invite, and a magic link for an
// unknown address, which becomes a sign-up).
//
// The link's token is what GoTrue calls the hashed token: verifyOtp({token_hash, type})
// and the action link both redeem it. Casus has no short numeric codes, so email_otp is
// the same token (verifyOtp({email, token, type}) accepts it too).
func (s *Server) adminGenerateLink(w http.ResponseWriter, r *http.Request) error {
	var p generateLinkParams
	if err := decode(r, &p); err != nil {
		return err
	}
	kind, err := p.validate()
	if err != nil {
		return err
	}
	redirect, _ := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if p.RedirectTo != "" && s.redirectAllowed(p.RedirectTo) {
		redirect = p.RedirectTo
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	ctx := r.Context()
	existing, err := s.q.UserGetByEmail(ctx, p.Email)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if kind.flow == amrEmailChange {
		return s.generateEmailChangeLink(w, r, p, kind, existing, found, redirect)
	}
	var create *dbsqlc.UserCreateParams
	switch {
	case !found && kind == linkRecovery:
		return errf(404, "user_not_found", "User with this email not found")
	case found && (kind == linkSignup || kind == linkInvite) && existing.EmailConfirmedAt.Valid:
		return errEmailExists
	case !found && kind == linkMagic:
		// As GoTrue: a magic link for an unknown address signs it up, passwordless here.
		kind, p.Type = linkSignup, "signup"
		create = &dbsqlc.UserCreateParams{Email: p.Email, UserMeta: meta, AppMeta: []byte(emailAppMetadata)}
	case !found && kind == linkSignup:
		if p.Password == "" {
			return errf(400, "validation_failed", "Signup requires a valid password")
		}
		hash, err := s.hashPassword(r.Context(), p.Password)
		if err != nil {
			return err
		}
		create = &dbsqlc.UserCreateParams{Email: p.Email, EncryptedPassword: hash, UserMeta: meta, AppMeta: []byte(emailAppMetadata)}
	case !found && kind == linkInvite:
		create = &dbsqlc.UserCreateParams{Email: p.Email, UserMeta: meta, AppMeta: []byte(emailAppMetadata)}
	}
	token := randomToken(24)
	var u dbsqlc.AuthUser
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if create != nil {
			if _, err := s.createUser(ctx, q, *create, false); err != nil {
				return err
			}
		}
		if found && kind == linkSignup && len(p.Data) > 0 {
			// As GoTrue: a new sign-up link for an unconfirmed user sets the metadata given.
			merged, err := mergeObjects(existing.RawUserMetaData, meta)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "update auth.users set raw_user_meta_data = $2, updated_at = now() where id = $1", existing.ID, merged); err != nil {
				return err
			}
		}
		row, err := s.storeLink(ctx, q, linkJob{kind: kind, email: p.Email}, token)
		if err != nil {
			return err
		}
		if kind == linkInvite {
			if _, err := tx.Exec(ctx, "update auth.users set invited_at = now() where id = $1", row.ID); err != nil {
				return err
			}
		}
		u, err = q.UserGetByID(ctx, row.ID)
		return err
	})
	if isUniqueViolation(err) {
		return errEmailExists
	}
	if err != nil {
		return err
	}
	user, err := s.loadUser(ctx, s.q, u)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, generateLinkResponse{
		User: user, ActionLink: s.actionLink(token, p.Type, redirect),
		EmailOTP: token, HashedToken: token, VerificationType: p.Type, RedirectTo: redirect,
	})
	return nil
}

// generateEmailChangeLink is generate_link for email_change_current and _new: the link
// (type=email_change) confirms the change to new_email for one of the two addresses.
func (s *Server) generateEmailChangeLink(w http.ResponseWriter, r *http.Request, p generateLinkParams, kind linkKind, u dbsqlc.AuthUser, found bool, redirect string) error {
	if !found {
		return errf(404, "user_not_found", "User with this email not found")
	}
	ctx := r.Context()
	newEmail, err := s.emailChangeTarget(ctx, p.NewEmail)
	if err != nil {
		return err
	}
	token := randomToken(24)
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		if err := storeEmailChange(ctx, tx, u, kind, newEmail, token); err != nil {
			return err
		}
		var err error
		u, err = s.q.WithTx(tx).UserGetByID(ctx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	user, err := s.loadUser(ctx, s.q, u)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, generateLinkResponse{
		User: user, ActionLink: s.actionLink(token, "email_change", redirect),
		EmailOTP: token, HashedToken: token, VerificationType: p.Type, RedirectTo: redirect,
	})
	return nil
}

// invite is POST /invite (supabase-js auth.admin.inviteUserByEmail): it creates a
// passwordless account for a new address, or re-invites an unconfirmed one, and mails an
// invite link; a confirmed address is refused as GoTrue refuses it.
func (s *Server) invite(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		Email string         `json:"email"`
		Data  map[string]any `json:"data"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return errf(400, "validation_failed", "An email address is required")
	}
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	redirect, _ := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if !s.allowEmail(p.Email) {
		return errOverEmail
	}
	ctx := r.Context()
	u, err := s.inviteUser(ctx, p.Email, meta)
	if err != nil {
		return err
	}
	// The link is stored and mailed right after the answer, as every mailed link.
	if err := s.enqueueLink(linkJob{kind: linkInvite, email: p.Email, redirect: redirect, unconfirmedOnly: true}); err != nil {
		return err
	}
	u.ConfirmationSentAt = now()
	return s.respondUser(ctx, w, u)
}

// inviteUser returns the unconfirmed account of the address, creating it when there is
// none, with invited_at set.
func (s *Server) inviteUser(ctx context.Context, email string, meta []byte) (dbsqlc.AuthUser, error) {
	var u dbsqlc.AuthUser
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		existing, err := q.UserGetByEmail(ctx, email)
		switch {
		case err == nil && existing.EmailConfirmedAt.Valid:
			return errEmailExists
		case err == nil:
			u = existing
		case errors.Is(err, pgx.ErrNoRows):
			if u, err = s.createUser(ctx, q, dbsqlc.UserCreateParams{Email: email, UserMeta: meta, AppMeta: json.RawMessage(emailAppMetadata)}, false); err != nil {
				return err
			}
		default:
			return err
		}
		if _, err := tx.Exec(ctx, "update auth.users set invited_at = now(), updated_at = now() where id = $1", u.ID); err != nil {
			return err
		}
		u, err = q.UserGetByID(ctx, u.ID)
		return err
	})
	if isUniqueViolation(err) {
		return u, errEmailExists
	}
	return u, err
}
