package gotrue

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
)

// E-mail change links, made by the admin API's generate_link (email_change_current and
// email_change_new) and redeemed by /verify with type=email_change. As GoTrue with its
// default secure e-mail change, both addresses must confirm: the first link redeemed is
// accepted and the change waits for the other one.
var (
	linkEmailChangeCurrent = linkKind{"email_change_current", "email_change_token_current", "", 24 * time.Hour, amrEmailChange}
	linkEmailChangeNew     = linkKind{"email_change_new", "email_change_token_new", "", 24 * time.Hour, amrEmailChange}
)

// singleConfirmationAccepted is GoTrue's message when one of the two links was followed.
const singleConfirmationAccepted = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

// storeEmailChange records the pending change to newEmail on the user and stores the
// link's token for the address kind names (current or new).
func storeEmailChange(ctx context.Context, tx pgx.Tx, u dbsqlc.AuthUser, kind linkKind, newEmail, token string) error {
	column, relates := "email_change_token_current", deref(u.Email)
	if kind == linkEmailChangeNew {
		column, relates = "email_change_token_new", newEmail
	}
	hash := kind.hash(token)
	// column is one of the two names above, never input.
	if _, err := tx.Exec(ctx, `update auth.users set email_change = $2, email_change_sent_at = now(),
		email_change_confirm_status = 0, `+column+` = $3, updated_at = now() where id = $1`, u.ID, newEmail, hash); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to, created_at, updated_at)
		values ($1, $2, $3, $4, now(), now())
		on conflict (user_id, token_type) do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
		  created_at = excluded.created_at, updated_at = excluded.updated_at`, u.ID, kind.tokenType, hash, relates)
	return err
}

// confirmEmailChange applies a redeemed e-mail change link: the first of the two links
// only marks the change half confirmed (pending); the second moves the address, on the
// user and its e-mail identity, and drops what is left of the change.
func (s *Server) confirmEmailChange(ctx context.Context, uid pgtype.UUID) (u dbsqlc.AuthUser, pending bool, err error) {
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		var newEmail string
		var status int16
		err := tx.QueryRow(ctx, `select coalesce(email_change, ''), coalesce(email_change_confirm_status, 0)
			from auth.users where id = $1 and deleted_at is null for update`, uid).Scan(&newEmail, &status)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && newEmail == "") {
			return errOTPExpired
		}
		if err != nil {
			return err
		}
		if status == 0 {
			pending = true
			_, err := tx.Exec(ctx, "update auth.users set email_change_confirm_status = 1, updated_at = now() where id = $1", uid)
			return err
		}
		if _, err := tx.Exec(ctx, `update auth.users set email = email_change, email_change = '', email_change_token_new = '',
			email_change_token_current = '', email_change_confirm_status = 0, email_change_sent_at = null, updated_at = now()
			where id = $1`, uid); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text),
			updated_at = now() where user_id = $1 and provider = 'email'`, uid, newEmail); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `delete from auth.one_time_tokens where user_id = $1
			and token_type in ('email_change_token_new', 'email_change_token_current')`, uid)
		return err
	})
	if isUniqueViolation(err) {
		return u, false, errEmailExists
	}
	if err != nil {
		return u, false, err
	}
	u, err = s.q.UserGetByID(ctx, uid)
	return u, pending, err
}

// emailChangeTarget validates generate_link's new_email for the user: a valid address
// that no other account has.
func (s *Server) emailChangeTarget(ctx context.Context, newEmail string) (string, error) {
	newEmail = strings.TrimSpace(newEmail)
	if newEmail == "" {
		return "", errf(400, "validation_failed", "An email address is required")
	}
	if !validEmail(newEmail) {
		return "", errInvalidEmail
	}
	_, err := s.q.UserGetByEmail(ctx, newEmail)
	switch {
	case err == nil:
		return "", errEmailExists
	case !errors.Is(err, pgx.ErrNoRows):
		return "", err
	}
	return newEmail, nil
}
