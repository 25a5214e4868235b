package gotrue

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"golang.org/x/crypto/bcrypt"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

var emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

const minPassword = 6

func validEmail(e string) bool { return len(e) <= 255 && emailRe.MatchString(e) }

type credentials struct {
	Email               string         `json:"email"`
	Password            *string        `json:"password"`
	Data                map[string]any `json:"data"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
	CreateUser          *bool          `json:"create_user"`
}

// signup creates an account. With confirmations on (the default) no session is given
// until the mailed link is followed. The answer never tells whether the address was
// known: a confirmed address gets an invented user shaped exactly like a new one (and no
// mail), and an unconfirmed one is replaced by the new sign-up (nobody proved they own it,
// so its password, metadata and profile must not outlive this request).
func (s *Server) signup(w http.ResponseWriter, r *http.Request) error {
	var p credentials
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return errf(400, "validation_failed", "To signup, please provide your email")
	}
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	if p.Password == nil || *p.Password == "" {
		return errf(400, "validation_failed", "Signup requires a valid password")
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	challenge, method, err := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	hash, err := s.hashPassword(*p.Password)
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
		// The same insert as a new account's, rolled back: a trigger on auth.users refuses
		// it exactly as it would a new sign-up (the answer must not tell the address is
		// taken), and the metadata comes back in its jsonb text form, as a new user's does.
		stored, err := s.dryRunCreate(ctx, meta)
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, 200, s.obfuscatedUser(p.Email, stored))
		return nil
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	params := dbsqlc.UserCreateParams{Email: p.Email, EncryptedPassword: hash, UserMeta: meta,
		AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}
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
	httpx.WriteJSON(w, 200, userObject(u, s.identities(ctx, s.q, u)))
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
func (s *Server) hashPassword(pw string) (*string, error) {
	if len(pw) < minPassword {
		return nil, errWeakPassword
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), s.BcryptCost)
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

// emailRequest reads the body of a mail-sending endpoint: a valid address and an
// allowed redirect.
func (s *Server) emailRequest(r *http.Request, missing string) (credentials, string, error) {
	var p credentials
	if err := decode(r, &p); err != nil {
		return p, "", err
	}
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return p, "", errf(400, "validation_failed", "%s", missing)
	}
	if !validEmail(p.Email) {
		return p, "", errInvalidEmail
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	return p, redirect, err
}

// obfuscatedUser is what a sign-up of a confirmed address answers: a new user as a real
// sign-up returns it (same fields in the same order, one e-mail identity), with invented
// ids, so nothing in it tells that the address was taken.
func (s *Server) obfuscatedUser(email string, meta []byte) userBody {
	n := now()
	id := fakeUUID()
	email = strings.ToLower(email)
	idData, _ := json.Marshal(map[string]any{"email": email, "email_verified": false, "phone_verified": false, "sub": id})
	identity := map[string]any{
		"identity_id": fakeUUID(), "id": id, "user_id": id, "identity_data": json.RawMessage(idData),
		"provider": "email", "last_sign_in_at": ts(n), "created_at": ts(n), "updated_at": ts(n), "email": email,
	}
	u := dbsqlc.AuthUser{Email: &email, ConfirmationSentAt: n, CreatedAt: n, UpdatedAt: n,
		RawAppMetaData: []byte(`{"provider": "email", "providers": ["email"]}`), RawUserMetaData: meta}
	body := userObject(u, []any{identity})
	body.ID = id
	return body
}

// fakeUUID is a random version-4 UUID.
func fakeUUID() string {
	b := randomToken(16)
	return b[0:8] + "-" + b[8:12] + "-4" + b[13:16] + "-a" + b[17:20] + "-" + b[20:32]
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	switch r.URL.Query().Get("grant_type") {
	case "password":
		return s.limit("signin", s.tokenPassword)(w, r)
	case "refresh_token":
		return s.tokenRefresh(w, r)
	case "pkce":
		return s.tokenPKCE(w, r)
	}
	return errf(400, "unsupported_grant_type", "unsupported_grant_type")
}

// dummyHash keeps a failed lookup as slow as a failed password check.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("casus-timing-equaliser"), 10)

func (s *Server) tokenPassword(w http.ResponseWriter, r *http.Request) error {
	var p credentials
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Email == "" || p.Password == nil {
		return errf(400, "validation_failed", "missing email or phone")
	}
	// Per address, only failed attempts count (RATE_LIMIT_SIGNIN per 5 minutes), so
	// guessing one account's password from many addresses is bounded too.
	addrKey := "signin-failed|" + strings.ToLower(strings.TrimSpace(p.Email))
	if s.limits.exhausted(addrKey) {
		return errOverRequest
	}
	failed := func() error {
		s.limits.allow(addrKey, s.d.Config.RateLimitSignIn, 5*time.Minute)
		return errInvalidCredentials
	}
	ctx := r.Context()
	u, err := s.q.UserGetByEmail(ctx, strings.TrimSpace(p.Email))
	if errors.Is(err, pgx.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(*p.Password))
		return failed()
	}
	if err != nil {
		return err
	}
	if bcrypt.CompareHashAndPassword([]byte(deref(u.EncryptedPassword)), []byte(*p.Password)) != nil {
		return failed()
	}
	if !u.EmailConfirmedAt.Valid {
		return errEmailNotConfirmed
	}
	if u.BannedUntil.Valid && u.BannedUntil.Time.After(time.Now()) {
		return errf(400, "user_banned", "User is banned")
	}
	out, err := s.issueSession(ctx, r, u, amrPassword)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// reuseInterval lets two tabs refreshing at once both succeed, as GoTrue allows.
const reuseInterval = 10 * time.Second

// tokenRefresh rotates a refresh token (GoTrue's reuse detection, see below).
func (s *Server) tokenRefresh(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.RefreshToken == "" {
		return errf(400, "validation_failed", "refresh_token required")
	}
	ctx := r.Context()
	var out map[string]any
	var reused bool
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		rt, err := q.RefreshTokenGetForUpdate(ctx, &p.RefreshToken)
		if errors.Is(err, pgx.ErrNoRows) {
			return errRefreshNotFound
		}
		if err != nil {
			return err
		}
		uid, _ := parseUUID(deref(rt.UserID))
		u, err := q.UserGetByID(ctx, uid)
		if err != nil {
			return errRefreshNotFound
		}
		if u.BannedUntil.Valid && u.BannedUntil.Time.After(time.Now()) {
			return errf(400, "user_banned", "Invalid Refresh Token: User Banned")
		}
		rotate := true
		var next string
		if rt.Revoked {
			// As GoTrue: the parent of the session's current token gets that token back
			// (the client lost the answer of its last refresh); any other rotated token
			// is accepted only within the reuse interval, after that it means theft and
			// the whole session ends.
			active, aerr := q.RefreshTokenActive(ctx, rt.SessionID)
			switch {
			case aerr == nil && deref(active.Parent) == deref(rt.Token):
				next, rotate = deref(active.Token), false
			case aerr != nil && !errors.Is(aerr, pgx.ErrNoRows):
				return aerr
			case time.Since(rt.UpdatedAt.Time) > reuseInterval:
				reused = true
				return q.SessionDelete(ctx, rt.SessionID)
			}
		} else if err := q.RefreshTokenRevoke(ctx, rt.ID); err != nil {
			return err
		}
		if rotate {
			next = randomToken(16)
			if err := q.RefreshTokenCreate(ctx, dbsqlc.RefreshTokenCreateParams{Token: &next, UserID: deref(rt.UserID), Parent: rt.Token, SessionID: rt.SessionID}); err != nil {
				return err
			}
		}
		amr, err := sessionAMR(ctx, q, rt.SessionID)
		if err != nil {
			return err
		}
		out, err = s.tokenResponse(u, rt.SessionID, next, amr, s.identities(ctx, q, u))
		return err
	})
	if reused {
		return errRefreshUsed
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

// flowStateExpiry is how long a PKCE code can be exchanged after its link was followed
// (GoTrue's flow state expiry, 300 s).
const flowStateExpiry = 5 * time.Minute

func (s *Server) tokenPKCE(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		AuthCode     string `json:"auth_code"`
		CodeVerifier string `json:"code_verifier"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return errf(400, "validation_failed", "invalid request: both auth code and code verifier should be non-empty")
	}
	ctx := r.Context()
	fs, err := s.q.FlowStateTake(ctx, p.AuthCode)
	if errors.Is(err, pgx.ErrNoRows) {
		return errFlowNotFound
	}
	if err != nil {
		return err
	}
	if !fs.AuthCodeIssuedAt.Valid {
		return errFlowNotFound
	}
	if time.Since(fs.AuthCodeIssuedAt.Time) > flowStateExpiry {
		return errFlowExpired
	}
	want := p.CodeVerifier
	if fs.CodeChallengeMethod == "s256" {
		sum := sha256.Sum256([]byte(p.CodeVerifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(fs.CodeChallenge)) != 1 {
		return errBadCodeVerifier
	}
	u, err := s.q.UserGetByID(ctx, fs.UserID)
	if err != nil {
		return errUserNotFound
	}
	// As GoTrue: the session of a PKCE exchange is authenticated by the flow's method.
	method := fs.AuthenticationMethod
	if strings.HasSuffix(method, "signup") {
		method = amrEmailSignup
	}
	out, err := s.issueSession(ctx, r, u, method)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	switch r.URL.Query().Get("scope") {
	case "", "global":
		err = s.q.SessionsDeleteForUser(ctx, u.ID)
	case "local":
		err = s.q.SessionDelete(ctx, sid)
	case "others":
		err = s.q.SessionsDeleteOthers(ctx, dbsqlc.SessionsDeleteOthersParams{UserID: u.ID, Keep: sid})
	default:
		return errf(400, "validation_failed", "Unsupported logout scope %q", r.URL.Query().Get("scope"))
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// getUser is the hot path of every page load: one statement checks the session and reads
// the user with its identities, shared with the lookups in flight at the same moment
// (userbatch.go); the body is written without reflection (userjson.go).
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) error {
	uid, sid, err := s.verifyUserToken(r)
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
	writeSessionUser(w, rows)
	return nil
}

// putUser updates the signed-in user. A new password, as in GoTrue, voids every pending
// link and ends every other session: whoever else held the account is out.
func (s *Server) putUser(w http.ResponseWriter, r *http.Request) error {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return err
	}
	var p struct {
		Email    *string        `json:"email"`
		Password *string        `json:"password"`
		Data     map[string]any `json:"data"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	ctx := r.Context()
	if p.Email != nil && !strings.EqualFold(strings.TrimSpace(*p.Email), deref(u.Email)) {
		return errEmailChange
	}
	var meta []byte
	if p.Data != nil {
		if meta, err = metadataJSON("user_metadata", p.Data); err != nil {
			return err
		}
	}
	if p.Password != nil {
		hash, err := s.hashPassword(*p.Password)
		if err != nil {
			return err
		}
		if bcrypt.CompareHashAndPassword([]byte(deref(u.EncryptedPassword)), []byte(*p.Password)) == nil {
			return errf(422, "same_password", "New password should be different from the old password.")
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
	httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
	return nil
}

// recover mails a reset link. The answer, and the work done before it, are the same
// whether or not the address exists: the link is stored and mailed afterwards.
func (s *Server) recover(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Password recovery requires an email")
	if err != nil {
		return err
	}
	return s.mailLink(w, p, linkJob{kind: linkRecovery, redirect: redirect})
}

// mailLink answers a request for a mailed link ({} whatever the address) and queues the
// link; the per-address limit counts every request, known address or not.
func (s *Server) mailLink(w http.ResponseWriter, p credentials, j linkJob) error {
	var err error
	if j.challenge, j.challengeMethod, err = pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod); err != nil {
		return err
	}
	if !s.allowEmail(p.Email) {
		return errOverEmail
	}
	j.email = p.Email
	if err := s.enqueueLink(j); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}

// otp sends a magic link, creating the account unless create_user is false. With
// create_user false an unknown address gets the answer of a known one.
func (s *Server) otp(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Only an email address or phone number should be provided")
	if err != nil {
		return err
	}
	meta, err := metadataJSON("user_metadata", p.Data)
	if err != nil {
		return err
	}
	if _, _, err := pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod); err != nil {
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

func (s *Server) resend(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		Type  string `json:"type"`
		Email string `json:"email"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Type != "signup" {
		return errf(400, "validation_failed", "Missing one of these types: signup, email_change, sms, phone_change")
	}
	p.Email = strings.TrimSpace(p.Email)
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if err != nil {
		return err
	}
	return s.mailLink(w, credentials{Email: p.Email}, linkJob{kind: linkSignup, redirect: redirect, unconfirmedOnly: true})
}

// verifyGet follows a mailed link and redirects with the session in the fragment (or a
// PKCE code in the query), so supabase-js signs the browser in. A code is issued only
// for the flow created by the same request as the link.
func (s *Server) verifyGet(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	redirect, err := s.redirectTo(q.Get("redirect_to"))
	if err != nil {
		return err
	}
	typ := q.Get("type")
	ctx := r.Context()
	link, err := s.consume(ctx, q.Get("token"), typ)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == errOTPExpired.Code {
			frag := url.Values{"error": {"access_denied"}, "error_code": {e.Code}, "error_description": {e.Msg}}
			http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
			return nil
		}
		return err
	}
	if link.pending {
		frag := url.Values{"message": {singleConfirmationAccepted}}
		http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
		return nil
	}
	u := link.user
	fs, err := s.q.FlowStateByUser(ctx, dbsqlc.FlowStateByUserParams{UserID: u.ID, AuthMethod: link.kind.flow, CreatedAt: pgtype.Timestamptz{Time: link.created, Valid: true}})
	if err == nil {
		if err := s.q.FlowStateIssue(ctx, fs.ID); err != nil {
			return err
		}
		sep := "?"
		if strings.Contains(redirect, "?") {
			sep = "&"
		}
		http.Redirect(w, r, redirect+sep+"code="+url.QueryEscape(fs.AuthCode), http.StatusSeeOther)
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	out, err := s.issueSession(ctx, r, u, amrOTP)
	if err != nil {
		return err
	}
	frag := url.Values{
		"access_token": {out["access_token"].(string)}, "refresh_token": {out["refresh_token"].(string)},
		"expires_in": {jsonNum(out["expires_in"])}, "expires_at": {jsonNum(out["expires_at"])},
		"token_type": {"bearer"}, "type": {typ},
	}
	http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
	return nil
}

func (s *Server) verifyPost(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		Type      string `json:"type"`
		Token     string `json:"token"`
		TokenHash string `json:"token_hash"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	token := p.TokenHash
	if token == "" {
		token = p.Token
	}
	link, err := s.consume(r.Context(), token, p.Type)
	if err != nil {
		return err
	}
	if link.pending {
		httpx.WriteJSON(w, 200, map[string]any{"msg": singleConfirmationAccepted, "code": 200})
		return nil
	}
	out, err := s.issueSession(r.Context(), r, link.user, amrOTP)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func ptr[T any](v T) *T { return &v }
