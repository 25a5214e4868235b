// Package gotrue serves /auth/v1 the way GoTrue (Supabase Auth) does, for the stock
// supabase-js client: same routes, JSON shapes, status codes and error codes.
package gotrue

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"casus/server/internal/authn"
	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
	"casus/server/internal/mail"
	"casus/server/internal/ratelimit"
)

// Server is the auth service.
type Server struct {
	d      deps.Deps
	q      *dbsqlc.Queries
	mailer mail.Sender
	outbox *mail.Outbox // non-nil only in development without SMTP
	limits limiter
	// nonceFailures counts wrong reauthentication nonces per user, whatever
	// RATE_LIMIT_ENABLED says: it voids a nonce, it does not throttle a client.
	nonceFailures limiter
	users         *userBatcher // GET /user lookups, several per statement under load
	links         chan linkJob // links to store and mail after the answer (links.go)
	stop          context.CancelFunc
	// workers are the link mailers; Close waits for them.
	workers sync.WaitGroup
	// BcryptCost is GoTrue's default; lowered only by tests that hash a lot.
	BcryptCost int
	hashing    *hashSlots // bounds the bcrypt work running at once (hashing.go)
}

// New builds the service.
func New(ctx context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d, q: dbsqlc.New(d.Owner), limits: limiter{ratelimit.New(d.Owner, d.Config.RateLimitEnabled, d.Log)},
		nonceFailures: limiter{ratelimit.New(d.Owner, true, d.Log)}, BcryptCost: 10, hashing: processHashing()}
	c := d.Config
	switch {
	case c.SMTPHost != "":
		s.mailer = &mail.SMTP{Host: c.SMTPHost, Port: c.SMTPPort, User: c.SMTPUser, Pass: c.SMTPPass, From: c.SMTPSender}
	case c.Production():
		// Confirmation and recovery links are the only way into an account.
		return nil, errors.New("CASUS_ENV=production requires SMTP_HOST (and SMTP_PORT, SMTP_USER, SMTP_PASS, SMTP_SENDER) to send the auth e-mails")
	default:
		s.outbox = &mail.Outbox{Log: d.Log}
		s.mailer = s.outbox
	}
	ctx, s.stop = context.WithCancel(ctx)
	s.users = newUserBatcher(ctx, s.q)
	s.links = make(chan linkJob, linkQueue)
	for range 2 {
		s.workers.Add(1)
		go s.linkWorker(ctx)
	}
	s.workers.Add(1)
	go func() {
		defer s.workers.Done()
		s.limits.Run(ctx, time.Minute)
	}()
	return s, nil
}

// Close stops the GET /user lookup workers and the link mailers.
func (s *Server) Close() error {
	s.stop()
	s.workers.Wait()
	return nil
}

// Routes registers /auth/v1.
func (s *Server) Routes(mux *http.ServeMux) {
	h := func(f httpx.HandlerFunc) http.Handler {
		return httpx.Handle(s.d.Log, s.withAPIKey(f))
	}
	mux.Handle("GET /auth/v1/health", h(s.health))
	mux.Handle("GET /auth/v1/settings", h(s.settings))
	mux.Handle("POST /auth/v1/signup", h(s.signup)) // limited per IP once the body tells which sign-up

	mux.Handle("POST /auth/v1/token", h(s.token))
	mux.Handle("POST /auth/v1/logout", h(s.logout))
	mux.Handle("GET /auth/v1/user", h(s.getUser))
	mux.Handle("PUT /auth/v1/user", h(s.limit("user", s.putUser))) // GoTrue's User limiter
	mux.Handle("GET /auth/v1/reauthenticate", h(s.reauthenticate))
	mux.Handle("DELETE /auth/v1/user/identities/{id}", h(s.unlinkIdentity))
	mux.Handle("POST /auth/v1/recover", h(s.limit("recover", s.recover)))
	mux.Handle("GET /auth/v1/verify", httpx.Handle(s.d.Log, s.limit("verify", s.verifyGet))) // a link from a mail: no apikey
	mux.Handle("POST /auth/v1/verify", h(s.limit("verify", s.verifyPost)))
	mux.Handle("POST /auth/v1/otp", h(s.limit("otp", s.otp)))
	mux.Handle("POST /auth/v1/resend", h(s.limit("otp", s.resend)))
	mux.Handle("GET /auth/v1/admin/users", h(s.admin(s.adminList)))
	mux.Handle("POST /auth/v1/admin/users", h(s.admin(s.adminCreate)))
	mux.Handle("GET /auth/v1/admin/users/{id}", h(s.admin(s.adminGet)))
	mux.Handle("PUT /auth/v1/admin/users/{id}", h(s.admin(s.adminUpdate)))
	mux.Handle("DELETE /auth/v1/admin/users/{id}", h(s.admin(s.adminDelete)))
	mux.Handle("POST /auth/v1/admin/generate_link", h(s.admin(s.adminGenerateLink)))
	mux.Handle("POST /auth/v1/invite", h(s.admin(s.invite)))
	s.factorRoutes(mux, h)      // MFA: /factors (factors.go)
	s.adminFactorRoutes(mux, h) // MFA admin: /admin/users/{id}/factors (admin_factors.go)
	s.disabledRoutes(mux, h)    // OAuth, SSO: GoTrue's answers when disabled (disabled.go)
	s.oauthClientRoutes(mux, h) // OAuth 2.1 server clients: /admin/oauth/clients (oauth_clients.go)
	// Any other path under /auth/v1 is GoTrue's 404, never the web app's index.html; a
	// known path asked with another method stays a 405, as GoTrue's router answers it.
	// (One pattern per method: the web app's "GET /" is more general in path.)
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	notFound := httpx.Handle(s.d.Log, func(w http.ResponseWriter, r *http.Request) error {
		var allow []string
		for _, m := range methods {
			if _, p := mux.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host}); p != "" && p != m+" /auth/v1/" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			w.WriteHeader(http.StatusMethodNotAllowed)
			return nil
		}
		return errPathNotFound
	})
	for _, m := range methods {
		mux.Handle(m+" /auth/v1/", notFound)
	}
	if s.outbox != nil && s.d.Config.DevMailOutbox {
		mux.HandleFunc("GET /_dev/mail", s.devMail)
	}
}

// withAPIKey requires a valid anon or service-role key, as Supabase's gateway does.
func (s *Server) withAPIKey(next httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := s.d.Keys.Identify(r)
		switch {
		case id.KeyErr == authn.ErrNoAPIKey:
			return errNoAPIKey
		case id.KeyErr != nil, id.KeyRole != authn.RoleAnon && id.KeyRole != authn.RoleServiceRole:
			return errBadAPIKey
		}
		w.Header().Set("X-Supabase-Api-Version", "2024-01-01")
		r.Body = http.MaxBytesReader(w, r.Body, s.d.Config.MaxBodyBytes)
		return next(w, r)
	}
}

// admin requires a bearer token whose role is one of JWT_ADMIN_ROLES (default
// service_role and supabase_admin, as GoTrue); supabase-js sends the service-role key.
func (s *Server) admin(next httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := s.d.Keys.Identify(r)
		switch {
		case !id.Bearer:
			return errNoAuth
		case id.BearerErr != nil:
			return errBadJWT
		case !slices.Contains(s.d.Config.AdminRoles(), id.Claims.Role):
			return errNotAdmin
		}
		return next(w, r)
	}
}

// decode reads a JSON body into v with GoTrue's errors for bad input.
func decode(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errf(413, "request_too_large", "Request body too large")
		}
		return errf(400, "bad_json", "Could not read request body")
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errf(400, "bad_json", "Could not parse request body as JSON: %v", err)
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, 200, map[string]any{"version": "casus-0.1", "name": "GoTrue", "description": "Casus auth (GoTrue-compatible)"})
	return nil
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, 200, map[string]any{
		"external":           map[string]bool{"email": true, "phone": false, "anonymous_users": s.d.Config.AnonymousUsersEnabled},
		"disable_signup":     false,
		"mailer_autoconfirm": s.d.Config.MailerAutoconfirm,
		"phone_autoconfirm":  false,
		"sms_provider":       "",
		"saml_enabled":       false,
	})
	return nil
}

// redirectTo is where a flow ends, as GoTrue's GetReferrer decides: the requested URL
// when SITE_URL's host or an ADDITIONAL_REDIRECT_URLS entry allows it, else SITE_URL.
// A URL that is not allowed is replaced, never followed.
func (s *Server) redirectTo(raw string) (string, error) {
	if raw != "" && s.redirectAllowed(raw) {
		return raw, nil
	}
	return s.d.Config.SiteURL, nil
}

// redirectAllowed reports whether raw is an absolute URL under an allowed prefix.
func (s *Server) redirectAllowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || strings.ContainsAny(raw, " \t\r\n\\") {
		return false
	}
	allowed := append([]string{s.d.Config.SiteURL}, s.d.Config.AdditionalRedirectURLs...)
	for _, a := range allowed {
		au, err := url.Parse(a)
		if err != nil {
			continue
		}
		if au.Scheme == u.Scheme && au.Host == u.Host && strings.HasPrefix(u.Path, strings.TrimRight(au.Path, "/")) {
			return true
		}
	}
	return false
}

// limiter is GoTrue's per-IP and per-address limits: token buckets kept in the database,
// so every instance on it spends from the same bucket (ratelimit).
type limiter struct{ *ratelimit.Limiter }

// allow spends one request from key's bucket (n per `per`) and reports whether there was one.
func (l limiter) allow(key string, n int, per time.Duration) bool { return l.Allow(key, n, per) }

// exhausted reports whether the key's bucket is empty, without taking from it.
func (l limiter) exhausted(key string) bool { return l.Exhausted(key) }

// limit applies the per-IP limit of an endpoint family.
func (s *Server) limit(family string, next httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.allowIP(family, r) {
			return errOverRequest
		}
		return next(w, r)
	}
}

// allowIP takes one request from the caller's bucket of an endpoint family.
func (s *Server) allowIP(family string, r *http.Request) bool {
	c := s.d.Config
	n, per := c.RateLimitVerify, 5*time.Minute
	switch family {
	case "signup":
		n, per = c.RateLimitSignUp, time.Hour
	case "anonymous":
		n, per = c.RateLimitAnonymous, time.Hour
	case "signin":
		n, per = c.RateLimitSignIn, 5*time.Minute
	case "recover", "otp":
		n, per = c.RateLimitEmail, time.Hour
	case "user":
		n, per = c.RateLimitOTP, 5*time.Minute
	}
	return s.limits.allow(family+"|"+httpx.ClientIP(r, c.TrustedProxies), n, per)
}

// allowEmail applies the per-address limit on mails sent.
func (s *Server) allowEmail(email string) bool {
	return s.limits.allow("email|"+strings.ToLower(email), s.d.Config.RateLimitEmail, time.Hour)
}

// devMail shows the development outbox (its links sign in as anyone who signed up), only
// to a browser on this machine: the socket peer must be loopback, whatever a proxy says.
func (s *Server) devMail(w http.ResponseWriter, r *http.Request) {
	if !httpx.IsLoopback(r) {
		http.NotFound(w, r)
		return
	}
	msgs := s.outbox.Messages()
	if strings.Contains(r.Header.Get("Accept"), "application/json") || r.URL.Query().Get("format") == "json" {
		httpx.WriteJSON(w, 200, msgs)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="ro"><meta charset="utf-8"><title>Casus — outbox de dezvoltare</title><body style="font-family:system-ui;max-width:760px;margin:2rem auto"><h1>Outbox de dezvoltare</h1><p>Fără SMTP configurat, mesajele rămân aici.</p>`)
	if len(msgs) == 0 {
		b.WriteString("<p>Niciun mesaj încă.</p>")
	}
	for _, m := range msgs {
		b.WriteString("<hr><p><b>" + htmlEscape(m.Subject) + "</b><br>către " + htmlEscape(m.To) + " · " + m.SentAt.Format("2006-01-02 15:04:05") + "</p><p><a href=\"" + htmlEscape(m.Link) + "\">" + htmlEscape(m.Link) + "</a></p>")
	}
	_, _ = w.Write([]byte(b.String()))
}

func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}
