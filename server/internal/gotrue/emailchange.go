package gotrue

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/mail"
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
// only marks the change half confirmed (pending); the second moves the address. A user
// without an address (an anonymous user adding one) has only the link to the new one,
// which completes the change at once.
func (s *Server) confirmEmailChange(ctx context.Context, uid pgtype.UUID) (u dbsqlc.AuthUser, pending bool, err error) {
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		var newEmail, current string
		var status int16
		err := tx.QueryRow(ctx, `select coalesce(email_change, ''), coalesce(email_change_confirm_status, 0), coalesce(email, '')
			from auth.users where id = $1 and deleted_at is null for update`, uid).Scan(&newEmail, &status, &current)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && newEmail == "") {
			return errOTPExpired
		}
		if err != nil {
			return err
		}
		if status == 0 && current != "" {
			pending = true
			_, err := tx.Exec(ctx, "update auth.users set email_change_confirm_status = 1, updated_at = now() where id = $1", uid)
			return err
		}
		return applyEmailChange(ctx, tx, uid, newEmail)
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

// applyEmailChange moves the user to newEmail, as GoTrue's emailChangeVerify does: the
// address is confirmed, the e-mail identity follows it (and is created for a user who had
// none, with "email" among the providers of app_metadata), an anonymous user becomes a
// permanent one (same id), and what is left of the change is dropped.
func applyEmailChange(ctx context.Context, tx pgx.Tx, uid pgtype.UUID, newEmail string) error {
	if _, err := tx.Exec(ctx, `update auth.users set email = lower($2), email_change = '', email_change_token_new = '',
		email_change_token_current = '', email_change_confirm_status = 0, email_change_sent_at = null,
		email_confirmed_at = coalesce(email_confirmed_at, now()), is_anonymous = false,
		raw_app_meta_data = raw_app_meta_data || jsonb_build_object(
		  'provider', coalesce(raw_app_meta_data ->> 'provider', 'email'),
		  'providers', (select coalesce(jsonb_agg(distinct p), '[]') from (
		    select jsonb_array_elements_text(coalesce(raw_app_meta_data -> 'providers', '[]')) as p union select 'email') ps)),
		updated_at = now()
		where id = $1`, uid, newEmail); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
		values ($3, $1, jsonb_build_object('sub', $3::text, 'email', lower($2), 'email_verified', true, 'phone_verified', false),
		  'email', now(), now(), now())
		on conflict (provider_id, provider) do update
		set identity_data = auth.identities.identity_data || jsonb_build_object('email', lower($2), 'email_verified', true),
		  updated_at = now()`, uid, newEmail, uuidString(uid)); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `delete from auth.one_time_tokens where user_id = $1
		and token_type in ('email_change_token_new', 'email_change_token_current')`, uid)
	return err
}

// requestEmailChange is PUT /user with a new address for a user without one (an
// anonymous user). With MAILER_AUTOCONFIRM the address is taken at once, as a sign-up
// would be; otherwise a link to the new address (with the request's PKCE flow) is mailed
// and the change waits for it.
func (s *Server) requestEmailChange(ctx context.Context, u dbsqlc.AuthUser, newEmail, challenge, method, redirect string) error {
	if s.d.Config.MailerAutoconfirm {
		err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error { return applyEmailChange(ctx, tx, u.ID, newEmail) })
		if isUniqueViolation(err) {
			return errEmailExists
		}
		return err
	}
	if !s.allowEmail(newEmail) {
		return errOverEmail
	}
	if s.mailer == nil {
		return errors.New("SMTP is not configured")
	}
	token := randomToken(24)
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		if err := storeEmailChange(ctx, tx, u, linkEmailChangeNew, newEmail, token); err != nil {
			return err
		}
		if challenge == "" {
			return nil
		}
		// The flow shares the token's created_at (now() of this transaction), which is how
		// /verify finds it.
		_, err := tx.Exec(ctx, `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge,
			provider_type, authentication_method, created_at, updated_at)
			values (gen_random_uuid(), $1, $2, $3, $4, 'email', $5, now(), now())`, u.ID, randomToken(16), method, challenge, amrEmailChange)
		return err
	})
	if err != nil {
		return err
	}
	return s.mailer.Send(mail.Compose(mail.EmailChange, newEmail, s.actionLink(token, "email_change", redirect)))
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
