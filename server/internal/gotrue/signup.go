package gotrue

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// emailRe is the format GoTrue accepts (checkmail's: the HTML living standard's valid
// e-mail address), with at least one dot in the domain, which Casus also requires.
var emailRe = regexp.MustCompile("^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$")

const minPassword = 6

func validEmail(e string) bool { return len(e) <= 255 && emailRe.MatchString(e) }

// emailAppMetadata is the app_metadata of an account made with an e-mail address.
const emailAppMetadata = `{"provider":"email","providers":["email"]}`

// signupParams is the body of POST /signup.
type signupParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Password            *string        `json:"password"`
	Data                map[string]any `json:"data"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`

	meta []byte // Data, encoded
}

// anonymous reports whether the body asks for an anonymous user (GoTrue: neither an
// e-mail nor a phone number).
func (p *signupParams) anonymous() bool {
	return strings.TrimSpace(p.Email) == "" && strings.TrimSpace(p.Phone) == ""
}

// validate checks an e-mail sign-up as GoTrue's validateSignupParams does.
func (p *signupParams) validate() error {
	p.Email = strings.TrimSpace(p.Email)
	if p.Password == nil || *p.Password == "" {
		return errf(400, "validation_failed", "Signup requires a valid password")
	}
	if len(*p.Password) < minPassword {
		return errWeakPassword
	}
	if p.Email != "" && strings.TrimSpace(p.Phone) != "" {
		return errf(400, "validation_failed", "Only an email address or phone number should be provided on signup.")
	}
	if p.Email == "" {
		return errPhoneDisabled
	}
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	var err error
	if p.meta, err = metadataJSON("user_metadata", p.Data); err != nil {
		return err
	}
	_, _, err = pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	return err
}

// signup creates an account. With confirmations on (the default) no session is given
// until the mailed link is followed. The answer never tells whether the address was
// known: a confirmed address gets an invented user shaped exactly like a new one (and no
// mail), and an unconfirmed one is replaced by the new sign-up (nobody proved they own it,
// so its password, metadata and profile must not outlive this request). The password is
// hashed once, before the address is looked up, so all three cost the same.
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	var p signupParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.anonymous() {
		return s.signupAnonymous(w, r, p)
	}
	if !s.allowIP("signup", r) {
		return errOverRequest
	}
	if err := p.validate(); err != nil {
		return err
	}
	challenge, method, _ := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	hash, err := s.hashPassword(r.Context(), *p.Password)
	if err != nil {
		return err
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if err != nil {
		return err
	}
	ctx := r.Context()
	autoconfirm := s.d.Config.MailerAutoconfirm
	if !autoconfirm && !s.allowEmail(p.Email) {
		return errOverEmail
	}
	existing, err := s.q.UserGetByEmail(ctx, p.Email)
	switch {
	case err == nil && existing.EmailConfirmedAt.Valid:
		if autoconfirm {
			return errUserExists
		}
		u, err := s.obfuscatedUser(ctx, p.Email, p.meta)
		if err != nil {
			return err
		}
		writeUser(w, &u)
		return nil
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	params := dbsqlc.UserCreateParams{Email: p.Email, EncryptedPassword: hash, UserMeta: p.meta, AppMeta: []byte(emailAppMetadata)}
	if autoconfirm {
		params.EmailConfirmedAt = now()
	}
	var u dbsqlc.AuthUser
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		// An unconfirmed account lost in a crash is simply signed up again; not waiting
		// for the WAL flush keeps this path close to the (read-only) answer for a taken
		// address, whose time would otherwise differ by a disk sync.
		if !autoconfirm {
			if _, err := tx.Exec(ctx, "set local synchronous_commit = off"); err != nil {
				return err
			}
		}
		q := s.q.WithTx(tx)
		if err := q.UserDeleteUnconfirmed(ctx, p.Email); err != nil {
			return err
		}
		var err error
		u, err = s.createUser(ctx, q, params, autoconfirm)
		return err
	})
	if err != nil {
		if isUniqueViolation(err) {
			return errUserExists
		}
		return err
	}
	if autoconfirm {
		out, err := s.issueSession(ctx, r, u, amrPassword)
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, 200, out)
		return nil
	}
	if err := s.enqueueLink(linkJob{kind: linkSignup, email: p.Email, redirect: redirect, unconfirmedOnly: true, challenge: challenge, challengeMethod: method}); err != nil {
		return err
	}
	// The confirmation is mailed right after this answer.
	u.ConfirmationSentAt = now()
	body, err := s.loadUser(ctx, s.q, u)
	if err != nil {
		return err
	}
	writeUser(w, &body)
	return nil
}

// signupAnonymous is supabase-js signInAnonymously: a POST /signup without an e-mail or
// phone number makes a user with no e-mail, password or identity, is_anonymous in the
// row and in its tokens, and signs it in. Off unless ANONYMOUS_USERS_ENABLED, as in
// GoTrue, and limited per IP by RATE_LIMIT_ANONYMOUS_USERS (per hour). The user becomes
// permanent by adding an e-mail address (PUT /user) and confirming it.
func (s *Server) signupAnonymous(w http.ResponseWriter, r *http.Request, p signupParams) error {
	if !s.d.Config.AnonymousUsersEnabled {
		return errAnonymousDisabled
	}
	if !s.allowIP("anonymous", r) {
		return errOverRequest
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := s.q.UserCreateAnonymous(ctx, meta)
	if err != nil {
		return err
	}
	out, err := s.issueSession(ctx, r, u, amrAnonymous)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// maxMetadataBytes bounds user_metadata and app_metadata (as JSON): they travel inside
// every access token and every verified identity the server caches.
const maxMetadataBytes = 16 << 10

// metadataJSON encodes metadata for storage, refusing what is too large.
func metadataJSON(field string, m map[string]any) ([]byte, error) {
	b, _ := json.Marshal(nonNil(m))
	if len(b) > maxMetadataBytes {
		return nil, errMetadataTooLarge(field)
	}
	return b, nil
}

func errMetadataTooLarge(field string) *Error {
	return errf(400, "validation_failed", "%s is too large: at most %d bytes of JSON", field, maxMetadataBytes)
}

// hashPassword enforces GoTrue's minimum length and returns the bcrypt hash.
func (s *Server) hashPassword(ctx context.Context, pw string) (*string, error) {
	if len(pw) < minPassword {
		return nil, errWeakPassword
	}
	hash, err := s.bcryptHash(ctx, pw)
	if err != nil {
		return nil, err
	}
	return ptr(string(hash)), nil
}

// createUser inserts the user and its e-mail identity with the given querier.
func (s *Server) createUser(ctx context.Context, q *dbsqlc.Queries, params dbsqlc.UserCreateParams, verified bool) (dbsqlc.AuthUser, error) {
	u, err := q.UserCreate(ctx, params)
	if err != nil {
		return u, triggerRefusal(err)
	}
	idData, _ := json.Marshal(map[string]any{"sub": uuidString(u.ID), "email": params.Email, "email_verified": verified, "phone_verified": false})
	return u, q.IdentityCreate(ctx, dbsqlc.IdentityCreateParams{ProviderID: uuidString(u.ID), UserID: u.ID, IdentityData: idData})
}

// triggerRefusal turns an error that a trigger on auth.users raised on purpose (a RAISE in
// a PL/pgSQL function, such as the study app's "Username is already taken" when a sign-up's
// profile cannot be made) into a 400 validation_failed with the trigger's own message, so
// the app shows it as the auth message. Supabase's GoTrue answers any trigger failure with a
// 500 "Database error saving new user"; other database errors keep that opacity here too.
func triggerRefusal(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		innermost, _, _ := strings.Cut(pg.Where, "\n")
		if strings.HasSuffix(innermost, " at RAISE") {
			return errf(400, "validation_failed", "%s", pg.Message)
		}
	}
	return err
}

var errDryRun = errors.New("dry run")

// dryRunCreate inserts an account with this metadata under a throwaway address and rolls it
// back: the answer a trigger on auth.users gives a new account with it (nil, or its
// refusal), and the metadata as stored. Used where an existing address must be answered as
// a new one would be (sign-up of a confirmed address, a magic link for a known one).
func (s *Server) dryRunCreate(ctx context.Context, meta []byte) ([]byte, error) {
	var stored []byte
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		u, err := s.createUser(ctx, s.q.WithTx(tx), dbsqlc.UserCreateParams{Email: "dry-run-" + randomToken(16) + "@signup.invalid",
			UserMeta: meta, AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}, false)
		if err != nil {
			return err
		}
		stored = u.RawUserMetaData
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return stored, nil
	}
	return nil, err
}

// obfuscatedUser is what a sign-up of a confirmed address answers, as GoTrue's
// sanitizeUser: a new user's fields in the same order, an invented id and an empty
// identities list (Supabase's documented way for an app to tell the address is taken).
// The metadata goes through PostgreSQL as a new user's does (its jsonb text form).
func (s *Server) obfuscatedUser(ctx context.Context, email string, meta []byte) (userRow, error) {
	// The same insert as a new account's, rolled back: a trigger on auth.users refuses it
	// exactly as it would a new sign-up (the answer must not tell the address is taken).
	meta, err := s.dryRunCreate(ctx, meta)
	if err != nil {
		return userRow{}, err
	}
	n := now()
	id := fakeUUID()
	email = strings.ToLower(email)
	appMeta := []byte(emailAppMetadata)
	if err := s.d.Owner.QueryRow(ctx, "select $1::jsonb, $2::jsonb", meta, appMeta).Scan(&meta, &appMeta); err != nil {
		return userRow{}, err
	}
	return userRow{
		ID: id, Email: email, ConfirmationSentAt: n, CreatedAt: n, UpdatedAt: n, AppMetadata: appMeta, UserMetadata: meta,
		Identities: []identityRow{},
	}, nil
}

// fakeUUID is a random version-4 UUID.
func fakeUUID() pgtype.UUID {
	u := pgtype.UUID{Valid: true}
	_, _ = rand.Read(u.Bytes[:])
	u.Bytes[6] = u.Bytes[6]&0x0f | 0x40
	u.Bytes[8] = u.Bytes[8]&0x3f | 0x80
	return u
}
