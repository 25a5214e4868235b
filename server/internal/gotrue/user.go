package gotrue

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db/dbsqlc"
)

// updateUserParams is the body of PUT /user (supabase-js updateUser).
type updateUserParams struct {
	Email               *string        `json:"email"`
	Password            *string        `json:"password"`
	Data                map[string]any `json:"data"`
	Nonce               string         `json:"nonce"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`

	meta []byte // Data, encoded; nil when absent
}

func (p *updateUserParams) validate() error {
	if p.Email != nil {
		*p.Email = strings.TrimSpace(*p.Email)
	}
	if p.Data != nil {
		var err error
		if p.meta, err = metadataJSON("user_metadata", p.Data); err != nil {
			return err
		}
	}
	if p.Password != nil && *p.Password != "" && len(*p.Password) < minPassword {
		return errWeakPassword
	}
	_, _, err := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	return err
}

// newEmail is the address the body asks to move to, "" when it keeps the user's.
func (p *updateUserParams) newEmail(u dbsqlc.AuthUser) string {
	if p.Email == nil || *p.Email == "" || strings.EqualFold(*p.Email, deref(u.Email)) {
		return ""
	}
	return strings.ToLower(*p.Email)
}

// getUser is the hot path of every page load: one statement checks the session and reads
// the user with its identities, shared with the lookups in flight at the same moment
// (userbatch.go); the body is written without reflection (userjson.go).
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) error {
	uid, sid, err := s.userToken(r)
	if err != nil {
		return err
	}
	rows, err := s.users.lookup(r.Context(), sid, uid)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return s.noSessionError(r.Context(), uid)
	}
	u := userFromBatch(rows)
	writeUser(w, &u)
	return nil
}

// putUser updates the signed-in user. A new password, as in GoTrue, voids every pending
// link and ends every other session: whoever else held the account is out. An anonymous
// user adds an e-mail address here (and may set a password with it), which makes it a
// permanent user once the address is confirmed; a permanent user's address is changed by
// an administrator.
func (s *Server) putUser(w http.ResponseWriter, r *http.Request) error {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return err
	}
	var p updateUserParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.validate(); err != nil {
		return err
	}
	ctx := r.Context()
	newEmail := p.newEmail(u)
	if newEmail != "" {
		if !u.IsAnonymous && deref(u.Email) != "" {
			return errEmailChange
		}
		if !validEmail(newEmail) {
			return errInvalidEmail
		}
		switch _, err := s.q.UserGetByEmail(ctx, newEmail); {
		case err == nil:
			return errEmailExists
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
	}
	if p.Password != nil && u.IsAnonymous && newEmail == "" {
		return errf(422, "validation_failed", "Updating password of an anonymous user without an email or phone is not allowed")
	}
	if p.Password != nil {
		// The nonce first: a wrong guess costs no bcrypt and counts against the nonce.
		if err := s.precheckReauthentication(ctx, u, sid, p.Nonce); err != nil {
			return err
		}
		if same, err := s.passwordMatches(ctx, []byte(deref(u.EncryptedPassword)), *p.Password); err != nil {
			return err
		} else if same {
			return errf(422, "same_password", "New password should be different from the old password.")
		}
		hash, err := s.hashPassword(ctx, *p.Password)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
			if err := s.checkReauthentication(ctx, tx, u, sid, p.Nonce); err != nil {
				return err
			}
			return s.q.WithTx(tx).UserChangePassword(ctx, dbsqlc.UserChangePasswordParams{UserID: u.ID, EncryptedPassword: hash, KeepSession: sid})
		})
		if err != nil {
			return err
		}
	}
	if p.meta != nil {
		n, err := s.q.UserUpdateMetadata(ctx, dbsqlc.UserUpdateMetadataParams{ID: u.ID, UserMeta: p.meta, MaxBytes: maxMetadataBytes})
		if err != nil {
			return err
		}
		if n == 0 {
			return errMetadataTooLarge("user_metadata")
		}
	}
	if newEmail != "" {
		redirect, _ := s.redirectTo(r.URL.Query().Get("redirect_to"))
		challenge, method, _ := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
		if err := s.requestEmailChange(ctx, u, newEmail, challenge, method, redirect); err != nil {
			return err
		}
	}
	u, err = s.q.UserGetByID(ctx, u.ID)
	if err != nil {
		return err
	}
	body, err := s.loadUser(ctx, s.q, u)
	if err != nil {
		return err
	}
	writeUser(w, &body)
	return nil
}
