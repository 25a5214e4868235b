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
	"github.com/jackc/pgx/v5/pgtype"
	"golang.org/x/crypto/bcrypt"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
	"casus/server/internal/mail"
)

var emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

const minPassword = 6

// Link lifetimes: a confirmation is good for a day, recovery and magic links for an hour.
var linkTTL = map[string]time.Duration{"confirmation_token": 24 * time.Hour, "recovery_token": time.Hour}

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
// until the mailed link is followed, and an address that is already registered gets
// the same answer as a new one, as GoTrue does, so sign-up cannot enumerate users.
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
	existing, err := s.q.UserGetByEmail(ctx, p.Email)
	switch {
	case err == nil && existing.EmailConfirmedAt.Valid:
		if autoconfirm {
			return errUserExists
		}
		// Hash anyway: a fast answer would tell a taken address from a new one.
		_, _ = bcrypt.GenerateFromPassword([]byte(*p.Password), s.BcryptCost)
		httpx.WriteJSON(w, 200, s.obfuscatedUser(p))
		return nil
	case err == nil:
		if s.allowEmail(p.Email) {
			if err := s.sendLink(ctx, existing, mail.Confirmation, "signup", redirect); err != nil {
				return err
			}
		}
		u, _ := s.q.UserGetByID(ctx, existing.ID)
		httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
		return nil
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	meta, _ := json.Marshal(nonNil(p.Data))
	params := dbsqlc.UserCreateParams{Email: p.Email, EncryptedPassword: hash, UserMeta: meta,
		AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}
	if autoconfirm {
		params.EmailConfirmedAt = now()
	}
	var u dbsqlc.AuthUser
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		var err error
		if u, err = s.createUser(ctx, q, params, autoconfirm); err != nil {
			return err
		}
		if p.CodeChallenge != "" {
			return s.createFlow(ctx, q, u.ID, p.CodeChallenge, p.CodeChallengeMethod, amrEmailSignup)
		}
		return nil
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
	if !s.allowEmail(p.Email) {
		return errOverEmail
	}
	if err := s.sendLink(ctx, u, mail.Confirmation, "signup", redirect); err != nil {
		return err
	}
	u, _ = s.q.UserGetByID(ctx, u.ID)
	httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
	return nil
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
		return u, err
	}
	idData, _ := json.Marshal(map[string]any{"sub": uuidString(u.ID), "email": params.Email, "email_verified": verified, "phone_verified": false})
	return u, q.IdentityCreate(ctx, dbsqlc.IdentityCreateParams{ProviderID: uuidString(u.ID), UserID: u.ID, IdentityData: idData})
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

// obfuscatedUser looks like a fresh sign-up without revealing the existing account.
func (s *Server) obfuscatedUser(p credentials) map[string]any {
	t := time.Now().UTC().Format(time.RFC3339Nano)
	b := randomToken(16)
	id := b[0:8] + "-" + b[8:12] + "-4" + b[13:16] + "-a" + b[17:20] + "-" + b[20:32]
	return map[string]any{"id": id, "aud": "authenticated", "role": "authenticated", "email": strings.ToLower(p.Email), "phone": "",
		"confirmation_sent_at": t, "app_metadata": map[string]any{"provider": "email", "providers": []string{"email"}},
		"user_metadata": nonNil(p.Data), "identities": []any{}, "created_at": t, "updated_at": t, "is_anonymous": false}
}

func (s *Server) createFlow(ctx context.Context, q *dbsqlc.Queries, uid pgtype.UUID, challenge, method, authMethod string) error {
	method = strings.ToLower(method)
	if method != "s256" && method != "plain" {
		return errf(400, "validation_failed", "Code challenge method must be s256 or plain")
	}
	return q.FlowStateCreate(ctx, dbsqlc.FlowStateCreateParams{UserID: uid, AuthCode: randomToken(16), Method: method, Challenge: challenge, AuthMethod: authMethod})
}

// sendLink stores a one-time token (hashed) and mails its link.
func (s *Server) sendLink(ctx context.Context, u dbsqlc.AuthUser, kind mail.Kind, verifyType, redirect string) error {
	if s.mailer == nil {
		return errf(500, "unexpected_failure", "Error sending %s email: SMTP is not configured", kind)
	}
	tokenType := "confirmation_token"
	if kind == mail.Recovery {
		tokenType = "recovery_token"
	}
	token := randomToken(24)
	hash := hashToken(token)
	if err := s.q.OneTimeTokenUpsert(ctx, dbsqlc.OneTimeTokenUpsertParams{UserID: u.ID, TokenType: tokenType, TokenHash: hash, RelatesTo: deref(u.Email)}); err != nil {
		return err
	}
	var err error
	if tokenType == "recovery_token" {
		err = s.q.UserSetRecoverySent(ctx, dbsqlc.UserSetRecoverySentParams{ID: u.ID, TokenHash: &hash})
	} else {
		err = s.q.UserSetConfirmationSent(ctx, dbsqlc.UserSetConfirmationSentParams{ID: u.ID, TokenHash: &hash})
	}
	if err != nil {
		return err
	}
	link := s.d.Config.SiteURL + "/auth/v1/verify?" + url.Values{"token": {token}, "type": {verifyType}, "redirect_to": {redirect}}.Encode()
	if err := s.mailer.Send(mail.Compose(kind, deref(u.Email), link)); err != nil {
		s.d.Log.Error("sending mail", "kind", kind, "err", err)
		return errf(500, "unexpected_failure", "Error sending %s email", kind)
	}
	return nil
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
	if !fs.AuthCodeIssuedAt.Valid || time.Since(fs.AuthCodeIssuedAt.Time) > 5*time.Minute {
		return errFlowNotFound
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

func (s *Server) putUser(w http.ResponseWriter, r *http.Request) error {
	u, _, err := s.currentUser(r)
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
	if p.Password != nil {
		hash, err := s.hashPassword(*p.Password)
		if err != nil {
			return err
		}
		if bcrypt.CompareHashAndPassword([]byte(deref(u.EncryptedPassword)), []byte(*p.Password)) == nil {
			return errf(422, "same_password", "New password should be different from the old password.")
		}
		if err := s.q.UserUpdatePassword(ctx, dbsqlc.UserUpdatePasswordParams{ID: u.ID, EncryptedPassword: hash}); err != nil {
			return err
		}
	}
	if p.Data != nil {
		meta, _ := json.Marshal(p.Data)
		if err := s.q.UserUpdateMetadata(ctx, dbsqlc.UserUpdateMetadataParams{ID: u.ID, UserMeta: meta}); err != nil {
			return err
		}
	}
	u, err = s.q.UserGetByID(ctx, u.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
	return nil
}

// recover mails a reset link; it answers the same whether or not the address exists.
func (s *Server) recover(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Password recovery requires an email")
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := s.q.UserGetByEmail(ctx, p.Email)
	if err == nil {
		if !s.allowEmail(p.Email) {
			return errOverEmail
		}
		if p.CodeChallenge != "" {
			if err := s.createFlow(ctx, s.q, u.ID, p.CodeChallenge, p.CodeChallengeMethod, amrRecovery); err != nil {
				return err
			}
		}
		if err := s.sendLink(ctx, u, mail.Recovery, "recovery", redirect); err != nil {
			return err
		}
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}

// otp sends a magic link (creating the account unless create_user is false).
func (s *Server) otp(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Only an email address or phone number should be provided")
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := s.q.UserGetByEmail(ctx, p.Email)
	if errors.Is(err, pgx.ErrNoRows) {
		if p.CreateUser != nil && !*p.CreateUser {
			return errf(422, "otp_disabled", "Signups not allowed for otp")
		}
		meta, _ := json.Marshal(nonNil(p.Data))
		u, err = s.createUser(ctx, s.q, dbsqlc.UserCreateParams{Email: p.Email, UserMeta: meta, AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}, false)
	}
	if err != nil {
		return err
	}
	if !s.allowEmail(p.Email) {
		return errOverEmail
	}
	if p.CodeChallenge != "" {
		if err := s.createFlow(ctx, s.q, u.ID, p.CodeChallenge, p.CodeChallengeMethod, amrMagicLink); err != nil {
			return err
		}
	}
	if err := s.sendLink(ctx, u, mail.MagicLink, "magiclink", redirect); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
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
	if !validEmail(strings.TrimSpace(p.Email)) {
		return errInvalidEmail
	}
	redirect, err := s.redirectTo(r.URL.Query().Get("redirect_to"))
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := s.q.UserGetByEmail(ctx, strings.TrimSpace(p.Email))
	if err == nil && !u.EmailConfirmedAt.Valid {
		if !s.allowEmail(p.Email) {
			return errOverEmail
		}
		if err := s.sendLink(ctx, u, mail.Confirmation, "signup", redirect); err != nil {
			return err
		}
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}

var verifyTypes = map[string][]string{
	"signup": {"confirmation_token"}, "email": {"confirmation_token"}, "invite": {"confirmation_token"},
	"magiclink": {"confirmation_token"}, "recovery": {"recovery_token"},
}

// consume redeems a one-time token, confirming the address.
func (s *Server) consume(ctx context.Context, token, typ string) (dbsqlc.AuthUser, error) {
	types, ok := verifyTypes[typ]
	if !ok {
		return dbsqlc.AuthUser{}, errf(400, "validation_failed", "Verify requires a verification type")
	}
	if token == "" {
		return dbsqlc.AuthUser{}, errf(400, "validation_failed", "Verify requires a token or a token hash")
	}
	row, err := s.q.OneTimeTokenTake(ctx, dbsqlc.OneTimeTokenTakeParams{TokenHash: hashToken(token), TokenTypes: types})
	if errors.Is(err, pgx.ErrNoRows) {
		return dbsqlc.AuthUser{}, errOTPExpired
	}
	if err != nil {
		return dbsqlc.AuthUser{}, err
	}
	if time.Since(row.CreatedAt.Time) > linkTTL[row.TokenType] {
		return dbsqlc.AuthUser{}, errOTPExpired
	}
	return s.q.UserConfirmEmail(ctx, row.UserID)
}

// verifyGet follows a mailed link and redirects with the session in the fragment (or a
// PKCE code in the query), so supabase-js signs the browser in.
func (s *Server) verifyGet(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	redirect, err := s.redirectTo(q.Get("redirect_to"))
	if err != nil {
		return err
	}
	typ := q.Get("type")
	ctx := r.Context()
	u, err := s.consume(ctx, q.Get("token"), typ)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == errOTPExpired.Code {
			frag := url.Values{"error": {"access_denied"}, "error_code": {e.Code}, "error_description": {e.Msg}}
			http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
			return nil
		}
		return err
	}
	authMethod := map[string]string{"signup": amrEmailSignup, "recovery": amrRecovery, "magiclink": amrMagicLink}[typ]
	if fs, err := s.q.FlowStateByUser(ctx, dbsqlc.FlowStateByUserParams{UserID: u.ID, AuthMethod: authMethod}); err == nil {
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
	u, err := s.consume(r.Context(), token, p.Type)
	if err != nil {
		return err
	}
	out, err := s.issueSession(r.Context(), r, u, amrOTP)
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
