package gotrue

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
	"casus/server/internal/mail"
)

// Reauthentication, as GoTrue has it: GET /reauthenticate (supabase-js reauthenticate())
// mails the signed-in user a six-digit nonce; with SECURE_PASSWORD_CHANGE on, PUT /user
// changes the password of a session older than a day only with that nonce. The nonce is
// stored hashed (with the address) on the user and in auth.one_time_tokens, is good for
// a day (GoTrue's MAILER_OTP_EXP) and is used up by the change.

const (
	reauthValidity      = 24 * time.Hour // GoTrue's MAILER_OTP_EXP default
	reauthFrequency     = time.Minute    // GoTrue's SMTP_MAX_FREQUENCY default
	reauthSessionMaxAge = 24 * time.Hour // sessions younger than this change the password without a nonce
	invalidNonceMessage = "Nonce has expired or is invalid"
	// Wrong nonces a user may send before the nonce is voided (a six-digit nonce guessed
	// at 5 tries has a 1 in 200,000 chance).
	reauthMaxFailures = 5
)

var (
	errReauthNeeded   = errf(400, "reauthentication_needed", "Password update requires reauthentication")
	errReauthNotValid = errf(422, "reauthentication_not_valid", invalidNonceMessage)
)

func reauthHash(email, nonce string) string {
	return hashToken("reauthentication:" + email + ":" + nonce)
}

// reauthenticate mails a nonce to the signed-in user's confirmed address.
func (s *Server) reauthenticate(w http.ResponseWriter, r *http.Request) error {
	u, _, err := s.currentUser(r)
	if err != nil {
		return err
	}
	email := deref(u.Email)
	if email == "" {
		return errf(400, "validation_failed", "Reauthentication requires the user to have an email or a phone number")
	}
	if !u.EmailConfirmedAt.Valid {
		return errf(422, "email_not_confirmed", "Please verify your email first.")
	}
	if sent := u.ReauthenticationSentAt; sent.Valid && time.Since(sent.Time) < reauthFrequency {
		left := (reauthFrequency - time.Since(sent.Time)) / time.Second
		return errf(429, "over_email_send_rate_limit", "For security purposes, you can only request this after %d seconds.", left)
	}
	if !s.allowEmail(email) {
		return errOverEmail
	}
	if s.mailer == nil {
		return errors.New("SMTP is not configured")
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return err
	}
	nonce := fmt.Sprintf("%06d", n.Int64())
	hash := reauthHash(email, nonce)
	ctx := r.Context()
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `update auth.users set reauthentication_token = $2, reauthentication_sent_at = now(), updated_at = now()
			where id = $1`, u.ID, hash); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to, created_at, updated_at)
			values ($1, 'reauthentication_token', $2, $3, now(), now())
			on conflict (user_id, token_type) do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
			  created_at = excluded.created_at, updated_at = excluded.updated_at`, u.ID, hash, email)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.mailer.Send(mail.ComposeCode(mail.Reauthentication, email, nonce)); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}

// reauthNeeded reports whether a password change in session sid needs the nonce.
func (s *Server) reauthNeeded(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, sid pgtype.UUID) (bool, error) {
	if !s.d.Config.SecurePasswordChange {
		return false, nil
	}
	var created pgtype.Timestamptz
	err := q.QueryRow(ctx, "select created_at from auth.sessions where id = $1", sid).Scan(&created)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, err
	}
	return !created.Valid || time.Since(created.Time) >= reauthSessionMaxAge, nil
}

// precheckReauthentication compares the nonce before the new password is hashed, counts
// wrong ones and voids the nonce after reauthMaxFailures of them. The change itself
// checks it again and uses it up (checkReauthentication).
func (s *Server) precheckReauthentication(ctx context.Context, u dbsqlc.AuthUser, sid pgtype.UUID, nonce string) error {
	if need, err := s.reauthNeeded(ctx, s.d.Owner, sid); err != nil || !need {
		return err
	}
	if nonce == "" {
		return errReauthNeeded
	}
	var stored string
	var sent pgtype.Timestamptz
	if err := s.d.Owner.QueryRow(ctx, `select coalesce(reauthentication_token, ''), reauthentication_sent_at from auth.users where id = $1`,
		u.ID).Scan(&stored, &sent); err != nil {
		return err
	}
	if stored == "" || !sent.Valid || time.Since(sent.Time) > reauthValidity {
		return errReauthNotValid
	}
	if subtle.ConstantTimeCompare([]byte(stored), []byte(reauthHash(deref(u.Email), nonce))) == 1 {
		return nil
	}
	key := "reauth-failures|" + uuidString(u.ID)
	if !s.nonceFailures.allow(key, reauthMaxFailures, reauthValidity) || s.nonceFailures.exhausted(key) {
		if _, err := s.d.Owner.Exec(ctx, `update auth.users set reauthentication_token = '', reauthentication_sent_at = null
			where id = $1 and reauthentication_token = $2`, u.ID, stored); err != nil {
			return err
		}
		if _, err := s.d.Owner.Exec(ctx, `delete from auth.one_time_tokens where user_id = $1 and token_type = 'reauthentication_token'`, u.ID); err != nil {
			return err
		}
	}
	return errReauthNotValid
}

// checkReauthentication is the SECURE_PASSWORD_CHANGE rule of a password change in
// session sid: nothing for a session younger than a day, else a valid nonce, used up
// here (in the caller's transaction, with the change).
func (s *Server) checkReauthentication(ctx context.Context, tx pgx.Tx, u dbsqlc.AuthUser, sid pgtype.UUID, nonce string) error {
	if need, err := s.reauthNeeded(ctx, tx, sid); err != nil || !need {
		return err
	}
	if nonce == "" {
		return errReauthNeeded
	}
	var stored string
	var sent pgtype.Timestamptz
	if err := tx.QueryRow(ctx, `select coalesce(reauthentication_token, ''), reauthentication_sent_at from auth.users where id = $1 for update`,
		u.ID).Scan(&stored, &sent); err != nil {
		return err
	}
	if stored == "" || !sent.Valid || time.Since(sent.Time) > reauthValidity ||
		subtle.ConstantTimeCompare([]byte(stored), []byte(reauthHash(deref(u.Email), nonce))) != 1 {
		return errReauthNotValid
	}
	if _, err := tx.Exec(ctx, `update auth.users set reauthentication_token = '', reauthentication_sent_at = null where id = $1`, u.ID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `delete from auth.one_time_tokens where user_id = $1 and token_type = 'reauthentication_token'`, u.ID)
	return err
}
