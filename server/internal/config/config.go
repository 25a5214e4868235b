// Package config reads the server configuration from the environment.
//
// Every setting has a default that works on a fresh development machine; production
// (CASUS_ENV=production) refuses unsafe defaults instead of guessing.
package config

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// DefaultAIModel is the upstream model when AI_MODEL is unset: the current mid-tier model of
// the installed @anthropic-ai/sdk's model list. frontend/src/lib/aiModel.test.ts fails when
// it lands on the SDK's deprecated list, or drifts from the web app's fallback.
const DefaultAIModel = "claude-sonnet-5-5"

// Config is the whole server configuration. Secrets are never logged: use LogValue.
type Config struct {
	Env string // "development" or "production"
	// App is the app served on top of the Supabase core (CASUS_APP): "study" (Casus itself:
	// its schema, seed, AI gateway and web app) or "none" (the core alone, serving whatever
	// schema the operator loads).
	App         string
	Addr        string // CASUS_ADDR
	PprofAddr   string // CASUS_PPROF_ADDR: loopback address for Go's runtime profiles; empty = off
	DatabaseURL string // DATABASE_URL
	// DatabaseURLSet is true when DATABASE_URL came from the environment; only then do we
	// refuse to fall back to a private cluster.
	DatabaseURLSet bool
	StateDir       string // CASUS_STATE_DIR: dev secret, private cluster, outbox (default .casus)
	SiteURL        string // SITE_URL: the app's origin, default redirect target and allow-list base
	// APIExternalURL (API_EXTERNAL_URL, GoTrue's name, default SITE_URL) is the public
	// address of the API: mailed /auth/v1/verify links and the token issuer use it.
	APIExternalURL string
	// JWTAdminRoles (JWT_ADMIN_ROLES, GoTrue's GOTRUE_JWT_ADMIN_ROLES) are the token roles
	// the admin API accepts as bearer.
	JWTAdminRoles []string
	// MFARequiredRoles (MFA_REQUIRED_ROLES, default admin; empty for none) are the study
	// app's profile roles whose admin powers need aal2 once they have enrolled a factor.
	MFARequiredRoles []string
	// DBEncryption encrypts TOTP secrets at rest, as GoTrue's GOTRUE_SECURITY_DB_ENCRYPTION_*:
	// SECURITY_DB_ENCRYPTION_ENCRYPT, _ENCRYPTION_KEY_ID, _ENCRYPTION_KEY (32 bytes,
	// base64url) and _DECRYPTION_KEYS (id:key,… — older keys kept for reading).
	DBEncryption DBEncryption
	// AdditionalRedirectURLs are further allowed redirect prefixes (ADDITIONAL_REDIRECT_URLS, comma separated).
	AdditionalRedirectURLs []string

	JWTSecret []byte        // JWT_SECRET
	JWTExpiry time.Duration // JWT_EXPIRY seconds

	SMTPHost, SMTPUser, SMTPPass, SMTPSender string
	SMTPPort                                 int
	MailerAutoconfirm                        bool
	// Auth features off by default, as in GoTrue: anonymous sign-ins
	// (ANONYMOUS_USERS_ENABLED; on by default with the study app), a reauthentication nonce for a password change in a
	// session older than a day (SECURE_PASSWORD_CHANGE, GoTrue's
	// SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION) and unlinking identities
	// (MANUAL_LINKING_ENABLED, GoTrue's SECURITY_MANUAL_LINKING_ENABLED).
	AnonymousUsersEnabled bool
	SecurePasswordChange  bool
	ManualLinkingEnabled  bool
	// DevMailOutbox (DEV_MAIL_OUTBOX) serves the development outbox at /_dev/mail, to
	// loopback clients only; never in production.
	DevMailOutbox bool

	// Rate limits, per hour unless said otherwise (GoTrue's GOTRUE_RATE_LIMIT_* in spirit).
	RateLimitSignIn int // RATE_LIMIT_SIGNIN per 5 minutes per IP
	RateLimitEmail  int // RATE_LIMIT_EMAIL_SENT per hour per address
	RateLimitVerify int // RATE_LIMIT_VERIFY per 5 minutes per IP
	RateLimitSignUp int // RATE_LIMIT_SIGNUP per hour per IP
	// RateLimitAnonymous (RATE_LIMIT_ANONYMOUS_USERS) anonymous sign-ins per hour per IP.
	RateLimitAnonymous int
	// RateLimitOTP (RATE_LIMIT_OTP) PUT /user requests per 5 minutes per IP, as GoTrue
	// limits its user endpoint with GOTRUE_RATE_LIMIT_OTP.
	RateLimitOTP     int
	RateLimitEnabled bool
	// Feedback (FEEDBACK_RATE_LIMIT_PER_IP, FEEDBACK_RATE_LIMIT_TOTAL): rows accepted per
	// hour from one client address and from everyone; the study schema enforces them.
	FeedbackPerIP int
	FeedbackTotal int
	// TrustedProxies (TRUSTED_PROXIES: comma-separated CIDRs or addresses) are the reverse
	// proxies whose X-Forwarded-For is believed; with none, the socket peer is the client.
	TrustedProxies []netip.Prefix

	DBSchemas []string // DB_SCHEMAS, first is the default
	DBMaxRows int      // DB_MAX_ROWS (0 = unlimited)
	// DBAggregatesEnabled (DB_AGGREGATES_ENABLED) is PostgREST's db-aggregates-enabled:
	// count(), sum() … in select, off by default as in PostgREST (PGRST123).
	DBAggregatesEnabled bool
	// DBPlanEnabled (DB_PLAN_ENABLED) is PostgREST's db-plan-enabled: the
	// application/vnd.pgrst.plan media type (EXPLAIN), off by default.
	DBPlanEnabled bool
	// DBTxEnd (DB_TX_END) is PostgREST's db-tx-end: commit (default), commit-allow-override,
	// rollback or rollback-allow-override; Prefer: tx is honoured only with an override.
	DBTxEnd string
	// DBPreRequest (DB_PRE_REQUEST) is PostgREST's db-pre-request: a function called
	// after the role switch and before each data-API statement.
	DBPreRequest string
	// DBExtraSearchPath (DB_EXTRA_SEARCH_PATH) is PostgREST's db-extra-search-path: the
	// schemas after the request's own in each request's search_path (default public).
	DBExtraSearchPath []string
	// DBConfig (DB_CONFIG) is PostgREST's db-config: read the login role's pgrst.*
	// settings (which then override these) at start and on NOTIFY pgrst 'reload config'.
	DBConfig         bool
	StatementTimeout time.Duration // DB_STATEMENT_TIMEOUT (ms)
	MaxBodyBytes     int64         // MAX_BODY_BYTES
	// HTTP server timeouts: the whole request (headers and body) must arrive within
	// HTTPReadTimeout, its headers within HTTPReadHeaderTimeout, and a keep-alive
	// connection is closed after HTTPIdleTimeout without a request. Responses (AI streams)
	// have no write timeout.
	HTTPReadTimeout       time.Duration // HTTP_READ_TIMEOUT (s)
	HTTPReadHeaderTimeout time.Duration // HTTP_READ_HEADER_TIMEOUT (s)
	HTTPIdleTimeout       time.Duration // HTTP_IDLE_TIMEOUT (s)
	DBPool                int           // DB_POOL: connections of the data-API pool (PostgREST's db-pool)
	DBOwnerPool           int           // DB_OWNER_POOL: connections of the owner pool (auth, AI gateway, realtime feed)
	DBPoolMin             int           // DB_POOL_MIN: data-API connections opened at start and kept while idle
	// DBAuthenticator (DB_AUTHENTICATOR) is the API pool's login role; empty means
	// "<database>_authenticator", one per deployment (roles are cluster-wide).
	DBAuthenticator string

	// AI gateway.
	AIProvider      string // AI_PROVIDER: anthropic | openai | "" (auto: anthropic when a key is set)
	AnthropicAPIKey string
	AnthropicBase   string
	OpenAIAPIKey    string
	OpenAIBase      string
	AIModel         string
	AIModels        []string // AI_ALLOWED_MODELS
	AIDailyRequests int      // AI_DAILY_REQUESTS per user
	AIDailyTokens   int      // AI_DAILY_TOKENS per user

	// Realtime limits per socket, after Supabase Realtime's tenant limits (0 = the default).
	RealtimeMaxChannels     int // REALTIME_MAX_CHANNELS_PER_CLIENT: channels one socket may join (100)
	RealtimeMaxEventsPerSec int // REALTIME_MAX_EVENTS_PER_SECOND: client messages per second, bursts of 10 s (100)
	RealtimeMaxPayloadKB    int // REALTIME_MAX_PAYLOAD_SIZE_KB: broadcast payload or presence meta (256)

	FrontendDir string // FRONTEND_DIR: built SPA (default frontend/dist)
}

// Production reports whether unsafe development conveniences must be off.
func (c *Config) Production() bool { return c.Env == "production" }

// StudyApp reports whether the study app is on (CASUS_APP=study, the default).
func (c *Config) StudyApp() bool { return c.App == "study" }

// LogValue keeps secrets out of logs.
func (c *Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("env", c.Env),
		slog.String("app", c.App),
		slog.String("addr", c.Addr),
		slog.String("database", redactURL(c.DatabaseURL)),
		slog.String("site_url", c.SiteURL),
		slog.Bool("smtp", c.SMTPHost != ""),
		slog.Bool("autoconfirm", c.MailerAutoconfirm),
		slog.String("ai_provider", c.AIProvider),
		slog.Any("trusted_proxies", c.TrustedProxies),
	)
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable)"
	}
	return u.Redacted()
}

// DefaultDatabaseURL is the local PostgreSQL of a development machine.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/casus?sslmode=disable"

// Load reads the environment. It creates the development JWT secret on first use.
func Load() (*Config, error) {
	c := &Config{
		Env:         env("CASUS_ENV", "development"),
		App:         env("CASUS_APP", "study"),
		Addr:        env("CASUS_ADDR", ":8080"),
		PprofAddr:   os.Getenv("CASUS_PPROF_ADDR"),
		DatabaseURL: env("DATABASE_URL", DefaultDatabaseURL),
		StateDir:    env("CASUS_STATE_DIR", ".casus"),
		SiteURL:     strings.TrimRight(env("SITE_URL", "http://localhost:8080"), "/"),
		SMTPHost:    os.Getenv("SMTP_HOST"),
		SMTPUser:    os.Getenv("SMTP_USER"),
		SMTPPass:    os.Getenv("SMTP_PASS"),
		SMTPSender:  env("SMTP_SENDER", "Casus <no-reply@casus.local>"),

		AIProvider:      os.Getenv("AI_PROVIDER"),
		AnthropicAPIKey: os.Getenv("ANTHROPIC_API_KEY"),
		AnthropicBase:   strings.TrimRight(env("ANTHROPIC_BASE_URL", "https://api.anthropic.com"), "/"),
		OpenAIAPIKey:    os.Getenv("OPENAI_API_KEY"),
		OpenAIBase:      strings.TrimRight(os.Getenv("OPENAI_BASE_URL"), "/"),
		AIModel:         env("AI_MODEL", DefaultAIModel),

		FrontendDir:     env("FRONTEND_DIR", "frontend/dist"),
		DBAuthenticator: os.Getenv("DB_AUTHENTICATOR"),
	}
	_, c.DatabaseURLSet = os.LookupEnv("DATABASE_URL")
	var errs []error
	var err error
	num := func(key string, def int) int {
		v, err := envInt(key, def)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	c.JWTExpiry = time.Duration(num("JWT_EXPIRY", 3600)) * time.Second
	c.SMTPPort = num("SMTP_PORT", 587)
	c.RateLimitSignIn = num("RATE_LIMIT_SIGNIN", 30)
	c.RateLimitEmail = num("RATE_LIMIT_EMAIL_SENT", 30)
	c.RateLimitVerify = num("RATE_LIMIT_VERIFY", 30)
	c.RateLimitSignUp = num("RATE_LIMIT_SIGNUP", 30)
	c.RateLimitAnonymous = num("RATE_LIMIT_ANONYMOUS_USERS", 30)
	c.RateLimitOTP = num("RATE_LIMIT_OTP", 30)
	c.FeedbackPerIP = num("FEEDBACK_RATE_LIMIT_PER_IP", 5)
	c.FeedbackTotal = num("FEEDBACK_RATE_LIMIT_TOTAL", 200)
	c.DBMaxRows = num("DB_MAX_ROWS", 1000)
	c.DBAggregatesEnabled = envBool("DB_AGGREGATES_ENABLED", false)
	c.DBPlanEnabled = envBool("DB_PLAN_ENABLED", false)
	c.DBTxEnd = env("DB_TX_END", "commit")
	c.DBPreRequest = os.Getenv("DB_PRE_REQUEST")
	c.DBConfig = envBool("DB_CONFIG", true)
	c.DBExtraSearchPath = splitList(env("DB_EXTRA_SEARCH_PATH", "public"))
	c.StatementTimeout = time.Duration(num("DB_STATEMENT_TIMEOUT", 8000)) * time.Millisecond
	c.MaxBodyBytes = int64(num("MAX_BODY_BYTES", 1<<20))
	c.HTTPReadTimeout = time.Duration(num("HTTP_READ_TIMEOUT", 30)) * time.Second
	c.HTTPReadHeaderTimeout = time.Duration(num("HTTP_READ_HEADER_TIMEOUT", 10)) * time.Second
	c.HTTPIdleTimeout = time.Duration(num("HTTP_IDLE_TIMEOUT", 30)) * time.Second
	// Data-API statements are short and CPU-bound, so more connections than the machine
	// can run at once only queue inside PostgreSQL, where the scheduler serves them
	// unfairly: the PostgreSQL wiki's ((cores × 2) + 1). With 32 clients on 2 cores,
	// 5 connections gave a p99 of about 20 ms, 16 connections 37–75 ms
	// (scripts/bench.sh rest).
	c.DBPool = num("DB_POOL", 2*runtime.NumCPU()+1)
	// Auth, the AI gateway, realtime and the schema cache share this pool (a sign-in
	// holds none of its connections while bcrypt runs).
	c.DBOwnerPool = num("DB_OWNER_POOL", 16)
	// Each opened connection costs PostgreSQL a backend start (tens of milliseconds of
	// CPU on a small VM); several instances on one database may want fewer idle ones.
	if c.DBPoolMin = num("DB_POOL_MIN", 4); c.DBPoolMin < 1 {
		errs = append(errs, fmt.Errorf("DB_POOL_MIN must be at least 1, not %d", c.DBPoolMin))
	}
	c.AIDailyRequests = num("AI_DAILY_REQUESTS", 200)
	c.AIDailyTokens = num("AI_DAILY_TOKENS", 400000)
	c.RealtimeMaxChannels = num("REALTIME_MAX_CHANNELS_PER_CLIENT", 100)
	c.RealtimeMaxEventsPerSec = num("REALTIME_MAX_EVENTS_PER_SECOND", 100)
	c.RealtimeMaxPayloadKB = num("REALTIME_MAX_PAYLOAD_SIZE_KB", 256)
	c.MailerAutoconfirm = envBool("MAILER_AUTOCONFIRM", false)
	c.DevMailOutbox = envBool("DEV_MAIL_OUTBOX", false)
	// The study app lets a visitor try a case before signing up, so it turns anonymous
	// sign-ins on; the core alone keeps GoTrue's default (off).
	c.AnonymousUsersEnabled = envBool("ANONYMOUS_USERS_ENABLED", c.App == "study")
	c.SecurePasswordChange = envBool("SECURE_PASSWORD_CHANGE", false)
	c.ManualLinkingEnabled = envBool("MANUAL_LINKING_ENABLED", false)
	c.RateLimitEnabled = envBool("RATE_LIMIT_ENABLED", true)
	c.DBSchemas = splitList(env("DB_SCHEMAS", "public"))
	c.AdditionalRedirectURLs = splitList(os.Getenv("ADDITIONAL_REDIRECT_URLS"))
	c.APIExternalURL = strings.TrimRight(env("API_EXTERNAL_URL", c.SiteURL), "/")
	c.JWTAdminRoles = splitList(env("JWT_ADMIN_ROLES", "service_role,supabase_admin"))
	if v, ok := os.LookupEnv("MFA_REQUIRED_ROLES"); ok {
		c.MFARequiredRoles = splitList(v)
	} else {
		c.MFARequiredRoles = []string{"admin"}
	}
	if c.DBEncryption, err = dbEncryptionFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if c.TrustedProxies, err = ParsePrefixes(os.Getenv("TRUSTED_PROXIES")); err != nil {
		errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %w", err))
	}
	c.AIModels = splitList(os.Getenv("AI_ALLOWED_MODELS"))
	if len(c.AIModels) == 0 {
		c.AIModels = []string{c.AIModel}
	}
	if c.AIProvider == "" && c.AnthropicAPIKey != "" {
		c.AIProvider = "anthropic"
	}
	if c.AIProvider == "" && c.OpenAIBase != "" {
		c.AIProvider = "openai"
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := c.loadSecret(); err != nil {
		return nil, err
	}
	return c, c.Validate()
}

// Validate rejects configurations that would be unsafe or cannot work.
func (c *Config) Validate() error {
	if c.Env != "development" && c.Env != "production" {
		return fmt.Errorf("CASUS_ENV must be development or production, not %q", c.Env)
	}
	if c.App != "study" && c.App != "none" {
		return fmt.Errorf("CASUS_APP must be study or none, not %q", c.App)
	}
	if len(c.JWTSecret) < 32 {
		return errors.New("JWT_SECRET must be at least 32 bytes")
	}
	if c.Production() {
		if PlaceholderSecret(string(c.JWTSecret)) {
			return errors.New("JWT_SECRET is a published placeholder (from .env.example or a tutorial); set a random secret, e.g. `openssl rand -hex 32`")
		}
		if c.DevMailOutbox {
			return errors.New("DEV_MAIL_OUTBOX cannot be on when CASUS_ENV=production")
		}
	}
	if _, err := url.Parse(c.SiteURL); err != nil {
		return fmt.Errorf("SITE_URL: %w", err)
	}
	if u, err := url.Parse(c.ExternalURL()); err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("API_EXTERNAL_URL must be an absolute URL, got %q", c.ExternalURL())
	}
	if len(c.DBSchemas) == 0 {
		return errors.New("DB_SCHEMAS must name at least one schema")
	}
	switch c.AIProvider {
	case "", "anthropic", "openai":
	default:
		return fmt.Errorf("AI_PROVIDER must be anthropic or openai, not %q", c.AIProvider)
	}
	return nil
}

// placeholderSecrets are JWT secrets published in this repository and in Supabase's
// self-hosting guides: anyone can sign tokens with them.
var placeholderSecrets = []string{
	"change-me-to-a-random-string-of-at-least-32-bytes",            // .env.example
	"super-secret-jwt-token-with-at-least-32-characters-long",      // Supabase's docker/.env.example
	"your-super-secret-jwt-token-with-at-least-32-characters-long", // Supabase's self-hosting guide
	"test-secret-that-is-at-least-32-bytes-long!!",                 // Casus's test servers
	"0123456789abcdef0123456789abcdef",                             // Casus's package tests
}

// PlaceholderSecret reports whether a secret is a known placeholder or obviously not
// random: a published value, a "change me" / "secret" template, or a single repeated
// character.
func PlaceholderSecret(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, p := range placeholderSecrets {
		if t == strings.ToLower(p) {
			return true
		}
	}
	for _, w := range []string{"change-me", "changeme", "change_me", "replace-me", "your-secret", "your-super-secret", "placeholder", "example"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return t == "" || strings.Count(t, t[:1]) == len(t)
}

// loadSecret takes JWT_SECRET from the environment; in development it falls back to a
// random secret generated once and kept in the state directory.
func (c *Config) loadSecret() error {
	if s := os.Getenv("JWT_SECRET"); s != "" {
		c.JWTSecret = []byte(s)
		return nil
	}
	if c.Production() {
		return errors.New("JWT_SECRET is required when CASUS_ENV=production (at least 32 bytes)")
	}
	path := filepath.Join(c.StateDir, "jwt_secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		c.JWTSecret = []byte(strings.TrimSpace(string(b)))
		return nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	secret := hex.EncodeToString(buf)
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return err
	}
	c.JWTSecret = []byte(secret)
	return nil
}

func env(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

func envInt(key string, def int) (int, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return def, fmt.Errorf("%s must be a non-negative whole number, not %q", key, v)
	}
	return n, nil
}

func envBool(key string, def bool) bool {
	switch strings.ToLower(os.Getenv(key)) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	return def
}

// ParsePrefixes reads a comma-separated list of CIDRs ("10.0.0.0/8", "fd00::/8") or
// single addresses ("172.17.0.1", a /32 or /128).
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(s) {
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR: %w", item, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or CIDR", item)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ExternalURL is API_EXTERNAL_URL, or SITE_URL when it is not set.
func (c *Config) ExternalURL() string {
	if c.APIExternalURL != "" {
		return c.APIExternalURL
	}
	return c.SiteURL
}

// AdminRoles are the roles the admin API accepts (JWT_ADMIN_ROLES), GoTrue's default
// when not set.
func (c *Config) AdminRoles() []string {
	if len(c.JWTAdminRoles) > 0 {
		return c.JWTAdminRoles
	}
	return []string{"service_role", "supabase_admin"}
}

// DBEncryption is the key set for secrets stored encrypted (AES-256-GCM under a key
// derived with HKDF-SHA256 from the named key and the row's id, GoTrue's aes-gcm-hkdf).
type DBEncryption struct {
	Encrypt bool
	KeyID   string
	// Keys by id, base64url of 32 bytes: the encryption key and every decryption key.
	Keys map[string]string
}

func dbEncryptionFromEnv() (DBEncryption, error) {
	d := DBEncryption{Encrypt: envBool("SECURITY_DB_ENCRYPTION_ENCRYPT", false), Keys: map[string]string{}}
	for _, pair := range splitList(os.Getenv("SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS")) {
		id, key, ok := strings.Cut(pair, ":")
		if !ok || id == "" {
			return d, fmt.Errorf("SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: want id:key pairs")
		}
		d.Keys[id] = key
	}
	d.KeyID = os.Getenv("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID")
	if key := os.Getenv("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY"); key != "" && d.KeyID != "" {
		d.Keys[d.KeyID] = key
	}
	if d.Encrypt && (d.KeyID == "" || d.Keys[d.KeyID] == "") {
		return d, fmt.Errorf("SECURITY_DB_ENCRYPTION_ENCRYPT needs SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID and _ENCRYPTION_KEY")
	}
	for id, key := range d.Keys {
		if b, err := base64.RawURLEncoding.DecodeString(key); err != nil || len(b) != 32 {
			return d, fmt.Errorf("SECURITY_DB_ENCRYPTION key %q: want 32 bytes in base64url without padding", id)
		}
	}
	return d, nil
}
