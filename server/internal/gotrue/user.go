package gotrue

import (
	"net/http"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"casus/server/internal/db/dbsqlc"
)

// updateUserParams is the body of PUT /user (supabase-js updateUser).
type updateUserParams struct {
	Email    *string        `json:"email"`
	Password *string        `json:"password"`
	Data     map[string]any `json:"data"`

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
	return nil
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
// link and ends every other session: whoever else held the account is out.
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
	if p.Email != nil && !strings.EqualFold(*p.Email, deref(u.Email)) {
		return errEmailChange
	}
	meta := p.meta
	if p.Password != nil {
		if len(*p.Password) < minPassword {
			return errWeakPassword
		}
		if bcrypt.CompareHashAndPassword([]byte(deref(u.EncryptedPassword)), []byte(*p.Password)) == nil {
			return errf(422, "same_password", "New password should be different from the old password.")
		}
		hash, err := s.hashPassword(*p.Password)
		if err != nil {
			return err
		}
		if err := s.q.UserChangePassword(ctx, dbsqlc.UserChangePasswordParams{UserID: u.ID, EncryptedPassword: hash, KeepSession: sid}); err != nil {
			return err
		}
	}
	if meta != nil {
		n, err := s.q.UserUpdateMetadata(ctx, dbsqlc.UserUpdateMetadataParams{ID: u.ID, UserMeta: meta, MaxBytes: maxMetadataBytes})
		if err != nil {
			return err
		}
		if n == 0 {
			return errMetadataTooLarge("user_metadata")
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
